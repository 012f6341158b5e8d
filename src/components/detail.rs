//! The detail panel of the selected pod (owner chain, conditions, containers, Events, delete) or node (conditions,
//! lease, labels, taints, kill / revive / cordon).

use std::rc::Rc;

use yew::prelude::*;

use crate::cmd::Cmd;
use crate::format::{fmt_clock, fmt_secs};
use crate::view::{
    CauseView, ChainView, Detail, EventLine, HistoryView, NodeDetail, PodDetail, ScheduleView, Selection, VersionView,
};
use kubeloop_engine::api::ObjKey;
use kubeloop_engine::behaviour::{BehaviourPatch, Sigterm};
use kubeloop_engine::controllers::scheduler::{Weights, FILTER_PLUGINS, SCORE_PLUGINS};

/// The arguments of its view function (not a component's props: nothing compares them).
pub struct DetailProps {
    pub detail: Rc<Detail>,
    pub on_cmd: Callback<Cmd>,
}

/// Events as `kubectl describe` lists them.
fn event_table(events: &[EventLine]) -> Html {
    if events.is_empty() {
        return html! { <p class="muted">{ "No events." }</p> };
    }
    html! {
        <table class="mini events-table">
            <thead><tr><th>{ "at" }</th><th>{ "type" }</th><th>{ "reason" }</th><th>{ "from" }</th><th>{ "message" }</th></tr></thead>
            <tbody>
                { for events.iter().map(|e| html! {
                    <tr class={classes!((&*e.type_ == "Warning").then_some("warn"))}>
                        <td class="num">{ fmt_clock(e.at) }</td>
                        <td>{ e.type_.to_string() }</td>
                        <td>{ e.reason.to_string() }{ if e.count > 1 { format!(" ×{}", e.count) } else { String::new() } }</td>
                        <td>{ e.source.to_string() }</td>
                        <td>{ e.message.to_string() }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

/// How long after each start the "crash every" button makes a process exit (kubeloop's own).
const CRASH_AFTER: kubeloop_engine::time::Millis = 30 * kubeloop_engine::time::SECOND;

fn pod_actions(d: &PodDetail, on_cmd: &Callback<Cmd>) -> Html {
    let delete = {
        let key = d.key.clone();
        on_cmd.reform(move |_: MouseEvent| Cmd::delete_pod(&key))
    };
    let app = d.app;
    let toggle = |readiness: bool| {
        let key = d.key.clone();
        on_cmd.reform(move |_: MouseEvent| {
            let mut patch = BehaviourPatch::default();
            let now = app.is_some_and(|a| if readiness { a.readiness_fails } else { a.liveness_fails });
            if readiness {
                patch.readiness_fails = Some(!now);
            } else {
                patch.liveness_fails = Some(!now);
            }
            Cmd::app_pod(&key, patch, false)
        })
    };
    let crash = {
        let key = d.key.clone();
        on_cmd.reform(move |_: MouseEvent| Cmd::app_pod(&key, BehaviourPatch::default(), true))
    };
    let crash_loop = app.and_then(|a| a.crash_after).is_some();
    let crash_after = {
        let key = d.key.clone();
        on_cmd.reform(move |_: MouseEvent| {
            let after = if crash_loop { None } else { Some(CRASH_AFTER) };
            Cmd::app_pod(&key, BehaviourPatch { crash_after: Some(after), ..Default::default() }, false)
        })
    };
    let unpullable = app.is_some_and(|a| a.unpullable);
    let pull = {
        let key = d.key.clone();
        on_cmd.reform(move |_: MouseEvent| {
            Cmd::app_pod(&key, BehaviourPatch { unpullable: Some(!unpullable), ..Default::default() }, false)
        })
    };
    let ignores = app.is_some_and(|a| a.ignores_sigterm);
    let sigterm = {
        let key = d.key.clone();
        on_cmd.reform(move |_: MouseEvent| {
            let next = if ignores { None } else { Some(Sigterm::Ignore) };
            Cmd::app_pod(&key, BehaviourPatch { on_sigterm: Some(next), ..Default::default() }, false)
        })
    };
    let (ready_fails, live_fails) = app.map_or((false, false), |a| (a.readiness_fails, a.liveness_fails));
    let pressed = |b: bool| if b { "true" } else { "false" };
    html! {
        <>
            <button data-testid="pod-delete" class="btn small danger" disabled={!d.exists} onclick={delete}
                title={format!("kubectl delete pod: graceful, {} s (its terminationGracePeriodSeconds): preStop hooks, SIGTERM, then SIGKILL", d.grace)}>
                { "Delete pod" }
            </button>
            <span class="app-actions" role="group" aria-label="Simulated application (kubeloop's own)">
                <button data-testid="pod-fail-readiness" class={classes!("btn", "small", ready_fails.then_some("on"))}
                    disabled={app.is_none()} aria-pressed={pressed(ready_fails)} onclick={toggle(true)}
                    title="kubeloop's own: the simulated application answers its readiness check with an error (or answers it again)">
                    { if ready_fails { "Pass readiness" } else { "Fail readiness" } }
                </button>
                <button data-testid="pod-fail-liveness" class={classes!("btn", "small", live_fails.then_some("on"))}
                    disabled={app.is_none()} aria-pressed={pressed(live_fails)} onclick={toggle(false)}
                    title="kubeloop's own: the simulated application answers its liveness check with an error (or answers it again)">
                    { if live_fails { "Pass liveness" } else { "Fail liveness" } }
                </button>
                <button data-testid="pod-crash" class="btn small" disabled={app.is_none()} onclick={crash}
                    title="kubeloop's own: the containers' processes exit now (code 1); the restart policy and back-off decide what follows">
                    { "Crash now" }
                </button>
                <button data-testid="pod-crash-loop" class={classes!("btn", "small", crash_loop.then_some("on"))}
                    disabled={app.is_none()} aria-pressed={pressed(crash_loop)} onclick={crash_after}
                    title="kubeloop's own: the processes exit 30 s after every start (a crash loop: watch the back-off)">
                    { "Crash every 30 s" }
                </button>
                <button data-testid="pod-image-unpullable" class={classes!("btn", "small", unpullable.then_some("on"))}
                    disabled={app.is_none()} aria-pressed={pressed(unpullable)} onclick={pull}
                    title="kubeloop's own: the registry answers 'not found' for this pod's images from now on (the next pull fails: ErrImagePull, ImagePullBackOff)">
                    { "Image unpullable" }
                </button>
                <button data-testid="pod-ignore-sigterm" class={classes!("btn", "small", ignores.then_some("on"))}
                    disabled={app.is_none()} aria-pressed={pressed(ignores)} onclick={sigterm}
                    title="kubeloop's own: the processes go on after SIGTERM, so a delete waits the whole grace period and ends in SIGKILL (exit 137)">
                    { "Ignore SIGTERM" }
                </button>
            </span>
        </>
    }
}

fn pod_view(d: &PodDetail, on_cmd: &Callback<Cmd>) -> Html {
    let phase =
        if d.terminating { format!("{} (Terminating)", d.phase.as_str()) } else { d.phase.as_str().to_string() };
    html! {
        <>
            if !d.exists {
                <p class="gone">{ "This pod no longer exists: its deletion went through. Its controller made a replacement if it wants one." }</p>
            } else {
                <dl class="facts">
                    <dt>{ "phase" }</dt><dd data-testid="detail-phase">{ phase }</dd>
                    <dt>{ "node" }</dt><dd>{ if d.node.is_empty() { "(not scheduled)".to_string() } else { d.node.to_string() } }</dd>
                    <dt>{ "resourceVersion" }</dt><dd data-testid="detail-rv">{ d.rv }</dd>
                    <dt>{ "uid" }</dt><dd class="mono">{ d.uid.to_string() }</dd>
                    <dt>{ "created" }</dt><dd>{ d.created.map(fmt_secs).unwrap_or_default() }</dd>
                    if let Some(t) = d.deletion {
                        <dt>{ "deletion at" }</dt><dd>{ fmt_secs(t) }</dd>
                    }
                    if !d.stopping.is_empty() {
                        <dt>{ "terminating" }</dt>
                        <dd data-testid="pod-countdown" class="countdown">
                            { for d.stopping.iter().map(|l| html! { <div>{ l.clone() }</div> }) }
                        </dd>
                    }
                    <dt>{ "requests" }</dt><dd>{ d.requests.clone() }</dd>
                </dl>
                <h4>{ "Owner chain" }</h4>
                <p class="owners" data-testid="owner-chain">
                    <span class="owner">{ format!("Pod {}", d.key.name) }</span>
                    { for d.owners.iter().map(|(kind, name, exists)| html! {
                        <>
                            <span class="arrow" aria-hidden="true">{ " → " }</span>
                            <span class={classes!("owner", (!exists).then_some("missing"))}>
                                { format!("{kind} {name}") }{ if *exists { "" } else { " (gone)" } }
                            </span>
                        </>
                    }) }
                    if d.owners.is_empty() {
                        <span class="muted">{ " (no controller: a bare pod)" }</span>
                    }
                </p>
                <h4>{ "Conditions" }</h4>
                if d.conditions.is_empty() {
                    <p class="muted">{ "None yet." }</p>
                } else {
                    <table class="mini">
                        <tbody>
                            { for d.conditions.iter().map(|(t, s, why)| html! {
                                <tr><td>{ t.to_string() }</td><td class={classes!(format!("st-{}", s.to_ascii_lowercase()))}>{ s.to_string() }</td><td>{ why.clone() }</td></tr>
                            }) }
                        </tbody>
                    </table>
                }
                <h4>{ "Containers" }</h4>
                <ul class="plain">{ for d.containers.iter().map(|c| html! { <li>{ c.clone() }</li> }) }</ul>
                if let Some(sv) = &d.schedule {
                    { schedule_view(sv, &d.node, on_cmd) }
                }
            }
            { why_view(d.key.clone(), d.why.as_ref(), on_cmd) }
            { history_view(d.key.clone(), d.history.as_ref(), on_cmd) }
            <h4>{ "Events" }</h4>
            { event_table(&d.events) }
        </>
    }
}

/// An object's history: every write kept (resourceVersion, time, client, verb); a version clicked is compared with
/// the one before it, or with the one chosen in "compare with", as a diff of their YAML.
fn history_view(key: ObjKey, h: Option<&Rc<HistoryView>>, on_cmd: &Callback<Cmd>) -> Html {
    let of = key.clone();
    let open = on_cmd.reform(move |_| Cmd::History(key.clone()));
    let Some(h) = h else {
        return html! { <button class="btn small" data-testid="history" onclick={open}>{ "History" }</button> };
    };
    let b = h.b;
    let version = |v: &VersionView| {
        let rv = v.rv;
        let pick = on_cmd.reform(move |_| Cmd::HistoryPick { a: None, b: rv });
        let key = of.clone();
        let why = on_cmd.reform(move |_| Cmd::WhyWrite(key.clone(), rv));
        let chosen = Some(v.rv) == h.b || Some(v.rv) == h.a;
        html! {
            <li data-testid="object-version" data-rv={v.rv.to_string()} data-client={v.client.clone()} data-verb={v.verb}
                class={classes!("version", chosen.then_some("chosen"), (!v.kept).then_some("muted"))}>
                <button class="cause-go" onclick={pick} title="compare this version with the one before it">
                    <span class="cause-at">{ fmt_secs(v.at) }</span>
                    { format!("rv {} {} by {}", v.rv, v.verb, v.client) }
                </button>
                <button class="btn small" data-testid="why" onclick={why} title="the chain of causes of this write">{ "why?" }</button>
            </li>
        }
    };
    let compare = on_cmd.reform(move |e: Event| {
        let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Cmd::HistoryPick { a: s.value().parse().ok(), b: b.unwrap_or_default() }
    });
    let close = on_cmd.reform(|_| Cmd::CloseHistory);
    html! {
        <div class="object-history" data-testid="object-history">
            <h4>{ "History" }<button class="icon" aria-label="Close the history" onclick={close}>{ "✕" }</button></h4>
            <p class="muted">{ h.note.clone() }</p>
            <ol class="plain versions">{ for h.versions.iter().map(version) }</ol>
            <label class="muted">{ "compare with " }
                <select onchange={compare}>
                    { for h.versions.iter().filter(|v| Some(v.rv) != h.b).map(|v| html! {
                        <option value={v.rv.to_string()} selected={Some(v.rv) == h.a}>{ format!("rv {}", v.rv) }</option>
                    }) }
                </select>
            </label>
            <p class="muted">{ h.compared.clone() }</p>
            <pre class="object-diff" data-testid="object-diff">{ h.diff.join("\n") }</pre>
        </div>
    }
}

/// "Why?" of a pod (its creation) or a node (the control plane's last write of it: NotReady, a taint): the chain
/// of causes recorded by the engine as the run went, from the write back to a person's intervention or a timer.
/// A step scrubs the timeline to its moment and selects the pod or node it wrote.
fn why_view(key: ObjKey, why: Option<&Rc<ChainView>>, on_cmd: &Callback<Cmd>) -> Html {
    let node = key.namespace.is_empty();
    let ask = on_cmd.reform(move |_| Cmd::Why(key.clone()));
    // A step scrubs the timeline to its moment, and shows the pod or node it wrote.
    let go = |s: &CauseView| {
        let (at, sel, on_cmd) = (s.at, s.select.clone(), on_cmd.clone());
        Callback::from(move |_: MouseEvent| {
            on_cmd.emit(Cmd::Scrub(at));
            if let Some(sel) = sel.clone() {
                on_cmd.emit(Cmd::Select(sel));
            }
        })
    };
    let step = |s: &CauseView| {
        let what = html! { <><span class="cause-at">{ fmt_secs(s.at) }</span><span class="cause-kind">{ s.kind }</span>{ s.text.clone() }</> };
        html! {
            <li data-testid="cause" data-kind={s.kind} data-time={s.at.to_string()} class={classes!("cause", format!("cause-{}", s.kind))}>
                <button class="cause-go" title="show the cluster at this moment" onclick={go(s)}>{ what }</button>
            </li>
        }
    };
    html! {
        <>
            <h4>{ if node { "Why is it as it is?" } else { "Why does it exist?" } }</h4>
            <button class="btn small" data-testid="why" onclick={ask}>{ "Why?" }</button>
            if let Some(c) = why {
                <div class="cause-chain" data-testid="cause-chain">
                    if !c.steps.is_empty() {
                        <p class="muted">{ format!("Why it was {}, back to where it started, as kubeloop recorded it while the run went:", c.about) }</p>
                    }
                    <ol class="plain">{ for c.steps.iter().map(step) }</ol>
                    if let Some(e) = &c.ends {
                        <p class="muted">{ format!("The chain ends here: {e}.") }</p>
                    }
                    <p class="muted" data-testid="cause-kept">{ c.kept.clone() }</p>
                </div>
            }
        </>
    }
}

/// Short names of the score plugins, as the table's columns.
const SCORE_COLUMNS: [&str; 4] = ["fit", "balanced", "taint", "spread"];

/// Pods the cluster-wide what-if names (the rest are counted).
const WHAT_IF_SHOWN: usize = 20;

/// Why the scheduler would put the pod where it would now: each node's filter verdict and scores, the chosen
/// node, upstream's message when none fits, and the score weights to try others with (for this pod, and which
/// pods across the cluster they would place elsewhere).
fn schedule_view(sv: &ScheduleView, on: &str, on_cmd: &Callback<Cmd>) -> Html {
    let upstream = Weights::default().0;
    let weight_input = |i: usize| {
        let weights = sv.weights;
        let onchange = on_cmd.reform(move |e: Event| {
            let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
            let mut w = weights;
            w[i] = input.value().trim().parse().unwrap_or(w[i]);
            Cmd::SetScheduleWeights(w)
        });
        html! {
            <label title={format!("{}: weight {} upstream; 0 turns it off", SCORE_PLUGINS[i], upstream[i])}>
                { SCORE_COLUMNS[i] }
                <input type="number" min="0" max="100" data-testid="schedule-weight" data-plugin={SCORE_PLUGINS[i]}
                    value={sv.weights[i].to_string()} {onchange} />
            </label>
        }
    };
    let verdict = match (&sv.unschedulable, &sv.best) {
        (Some(msg), _) => html! { <p class="sched-msg" data-testid="schedule-message">{ msg.clone() }</p> },
        (None, Some(best)) => html! {
            <p>
                { "Would go to " }<b>{ best.to_string() }</b>
                { if sv.tied > 1 { format!(" (one of {} tied: the scheduler picks at random)", sv.tied) } else { String::new() } }
                { if on.is_empty() { String::new() } else { format!(" · bound to {on}") } }
            </p>
        },
        (None, None) => html! {},
    };
    let filter_input = |i: usize| {
        let filters = sv.filters;
        let onchange = on_cmd.reform(move |e: Event| {
            let mut f = filters;
            f[i] = e.target_unchecked_into::<web_sys::HtmlInputElement>().checked();
            Cmd::SetScheduleFilters(f)
        });
        html! {
            <label title={format!("{}: a filter plugin of upstream's default profile; unticked, it rejects no node", FILTER_PLUGINS[i])}>
                <input type="checkbox" data-testid="schedule-filter" data-plugin={FILTER_PLUGINS[i]} checked={sv.filters[i]} {onchange} />
                { FILTER_PLUGINS[i] }
            </label>
        }
    };
    let reset = {
        let on_cmd = on_cmd.clone();
        Callback::from(move |_: MouseEvent| {
            on_cmd.emit(Cmd::SetScheduleWeights(upstream));
            on_cmd.emit(Cmd::SetScheduleFilters([true; FILTER_PLUGINS.len()]));
        })
    };
    let what_if = (sv.weights != upstream || sv.filters.contains(&false)).then(|| {
        let changed = sv.default_best != sv.best;
        // The first of the best nodes (the hook's value), and how many more tie with it, in words.
        let node = |n: &[kubeloop_engine::api::Str]| n.first().map_or("no node".to_string(), |s| s.to_string());
        let nodes = |n: &[kubeloop_engine::api::Str]| match n.len() {
            0 | 1 => node(n),
            k => format!("{} (or {} tied)", n[0], k - 1),
        };
        html! {
            <>
            <p class={classes!("sched-whatif", changed.then_some("changed"))} data-testid="schedule-whatif">
                { format!(
                    "With upstream's profile: {}. {}",
                    sv.default_best.as_deref().unwrap_or("no node"),
                    if changed { "This what-if changes the placement." } else { "This what-if does not change the placement." }
                ) }
                <button class="btn small" onclick={reset}>{ "Upstream's profile" }</button>
            </p>
            if let Some(w) = &sv.what_if {
                <div class="sched-moved" data-testid="schedule-moved" data-moved={w.moved.len().to_string()} data-looked={w.looked.to_string()}>
                    <p>
                        { format!(
                            "Across the cluster, each pod as if scheduled now: {} of {} pods would go elsewhere with this what-if{}.",
                            w.moved.len(),
                            w.looked,
                            if w.looked < w.of { format!(" (the first {} of {}: kubeloop bounds the work)", w.looked, w.of) } else { String::new() }
                        ) }
                    </p>
                    if !w.moved.is_empty() {
                        <ul>
                            { for w.moved.iter().take(WHAT_IF_SHOWN).map(|(pod, from, to)| html! {
                                <li data-testid="schedule-move" data-pod={pod.to_string()} data-from={node(from)} data-to={node(to)}>
                                    <b>{ pod.to_string() }</b>{ format!(": {} → {}", nodes(from), nodes(to)) }
                                </li>
                            }) }
                            if w.moved.len() > WHAT_IF_SHOWN { <li class="muted">{ format!("and {} more", w.moved.len() - WHAT_IF_SHOWN) }</li> }
                        </ul>
                    }
                </div>
            }
            </>
        }
    });
    let title = if sv.unschedulable.is_some() { "Why is it Pending" } else { "Where the scheduler would put it" };
    html! {
        <>
            <h4>{ title }</h4>
            <div class="schedule" data-testid="schedule-explain" data-best={sv.best.as_deref().unwrap_or("").to_string()}>
                <p class="muted">{ "kube-scheduler's default profile over the API's state now: every node through its filters, the feasible ones scored (normalized 0-100, times the weight)." }</p>
                { verdict }
                { for what_if }
                <table class="mini sched">
                    <thead><tr>
                        <th>{ "node" }</th><th title="the filter plugins">{ "filter" }</th>
                        { for (0..4).map(|i| html! { <th title={format!("{}, weight {}", SCORE_PLUGINS[i], sv.weights[i])}>{ format!("{}×{}", SCORE_COLUMNS[i], sv.weights[i]) }</th> }) }
                        <th>{ "total" }</th>
                    </tr></thead>
                    <tbody>
                        { for sv.nodes.iter().map(|n| {
                            let best = sv.best.as_ref() == Some(&n.node);
                            let reason = n.rejected.as_ref().map(|(_, r)| r.clone());
                            let score = n.scores.map(|s| s.1.to_string());
                            html! {
                                <tr data-testid="schedule-node" data-node={n.node.to_string()} data-feasible={n.scores.is_some().to_string()}
                                    data-reason={reason} data-score={score} class={classes!(best.then_some("best"))}>
                                    <td class="nodename">{ n.node.to_string() }{ if best { " ★" } else { "" } }</td>
                                    if let Some((plugin, why)) = &n.rejected {
                                        <td colspan="6" class="rejected">{ format!("✗ {plugin}: {why}") }</td>
                                    } else {
                                        <td title="every filter passes">{ "✓" }</td>
                                        { for (0..4).map(|i| html! { <td class="num">{ n.scores.map_or(String::new(), |s| s.0[i].to_string()) }</td> }) }
                                        <td class="num"><b>{ n.scores.map_or(String::new(), |s| s.1.to_string()) }</b></td>
                                    }
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
                if sv.total > sv.nodes.len() {
                    <p class="muted">{ format!("and {} more nodes (kubeloop lists {})", sv.total - sv.nodes.len(), sv.nodes.len()) }</p>
                }
                <div class="sched-weights" role="group" aria-label="Score weights (what-if)">
                    <span>{ "Score weights (what-if):" }</span>
                    { for (0..4).map(weight_input) }
                </div>
                <div class="sched-weights sched-filters" role="group" aria-label="Filter plugins (what-if)">
                    <span>{ "Filters (what-if):" }</span>
                    { for (0..FILTER_PLUGINS.len()).map(filter_input) }
                </div>
            </div>
        </>
    }
}

fn node_view(d: &NodeDetail, on_cmd: &Callback<Cmd>) -> Html {
    html! {
        <>
            <dl class="facts">
                <dt>{ "Ready" }</dt><dd>{ d.ready.label() }</dd>
                <dt>{ "kubelet" }</dt><dd>{ if d.alive { "running" } else { "stopped (killed)" } }</dd>
                <dt>{ "schedulable" }</dt><dd>{ if d.unschedulable { "no (cordoned)" } else { "yes" } }</dd>
                <dt>{ "resourceVersion" }</dt><dd>{ d.rv }</dd>
                <dt>{ "allocatable" }</dt><dd>{ d.capacity.clone() }</dd>
                <dt>{ "lease renewed" }</dt><dd>{ d.lease_renewed.map(fmt_secs).unwrap_or_else(|| "never".into()) }</dd>
                <dt>{ "pods" }</dt><dd>{ d.pods }</dd>
            </dl>
            if !d.alive {
                <p class="muted">{ "With the kubelet down nothing renews the node's Lease: after node-monitor-grace-period the node lifecycle controller marks it Unknown and taints it." }</p>
            }
            <h4>{ "Conditions" }</h4>
            <table class="mini">
                <tbody>
                    { for d.conditions.iter().map(|(t, s, r)| {
                        // Ready should be True; the pressure conditions should be False.
                        let healthy = (&**t == "Ready") == (&**s == "True");
                        let class = if &**s == "Unknown" { "st-unknown" } else if healthy { "st-good" } else { "st-bad" };
                        html! {
                            <tr><td>{ t.to_string() }</td><td class={class}>{ s.to_string() }</td><td>{ r.to_string() }</td></tr>
                        }
                    }) }
                </tbody>
            </table>
            if !d.taints.is_empty() {
                <h4>{ "Taints" }</h4>
                <div class="tags">{ for d.taints.iter().map(|t| html! { <span class="tag taint">{ t.clone() }</span> }) }</div>
            }
            <h4>{ "Labels" }</h4>
            <div class="tags">{ for d.labels.iter().map(|l| html! { <span class="tag label">{ l.clone() }</span> }) }</div>
            <h4>{ "Events" }</h4>
            { event_table(&d.events) }
            { why_view(ObjKey::cluster(&d.name), d.why.as_ref(), on_cmd) }
            { history_view(ObjKey::cluster(&d.name), d.history.as_ref(), on_cmd) }
        </>
    }
}

fn node_actions(d: &NodeDetail, on_cmd: &Callback<Cmd>) -> Html {
    let name = d.name.to_string();
    let kill = {
        let n = name.clone();
        on_cmd.reform(move |_: MouseEvent| Cmd::kill_node(&n))
    };
    let revive = {
        let n = name.clone();
        on_cmd.reform(move |_: MouseEvent| Cmd::revive_node(&n))
    };
    let cordon = {
        let (n, on) = (name.clone(), !d.unschedulable);
        on_cmd.reform(move |_: MouseEvent| Cmd::cordon(&n, on))
    };
    html! {
        <>
            <button data-testid="detail-node-kill" class="btn small danger" disabled={!d.alive} onclick={kill}>{ "Kill" }</button>
            <button data-testid="detail-node-revive" class="btn small" disabled={d.alive} onclick={revive}>{ "Revive" }</button>
            <button data-testid="detail-node-cordon" class="btn small" disabled={!d.exists} onclick={cordon}>
                { if d.unschedulable { "Uncordon" } else { "Cordon" } }
            </button>
        </>
    }
}

pub fn detail_panel(props: &DetailProps) -> Html {
    let close = props.on_cmd.reform(|_: MouseEvent| Cmd::Select(Selection::None));
    let (title, testid, actions, body) = match &*props.detail {
        Detail::Pod(d) => {
            (format!("pod/{}", d.key.name), "pod-detail", pod_actions(d, &props.on_cmd), pod_view(d, &props.on_cmd))
        }
        Detail::Node(d) => {
            (format!("node/{}", d.name), "node-detail", node_actions(d, &props.on_cmd), node_view(d, &props.on_cmd))
        }
    };
    html! {
        <aside class="detail" data-testid={testid} aria-label={title.clone()}>
            <div class="detail-head">
                <h3>{ title }</h3>
                <div class="detail-actions">{ actions }</div>
                <button class="icon" aria-label="Close details" title="Close (Esc)" onclick={close}>{ "✕" }</button>
            </div>
            <div class="detail-body">{ body }</div>
        </aside>
    }
}
