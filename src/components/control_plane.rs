//! The control plane's processes: the two kube-controller-manager replicas (one leads, holding the Lease), the
//! scheduler, their state and crash / restart buttons, and the Lease holder.

use std::rc::Rc;

use kubeloop_engine::intervention::FaultAction;
use kubeloop_engine::time::Millis;
use yew::prelude::*;

use crate::cmd::Cmd;
use crate::format::fmt_dur;
use kubeloop_engine::controller::HostState;

use crate::view::{ControlPlaneView, ProcessView};

/// The arguments of its view function (not a component's props: nothing compares them).
pub struct ControlPlaneProps {
    pub view: Rc<ControlPlaneView>,
    pub now: Millis,
    pub on_cmd: Callback<Cmd>,
}

/// One process's row, as a plain function (a component costs about 2 KiB of yew's code; the panel has three rows).
fn process_row(p: &ProcessView, on_cmd: &Callback<Cmd>) -> Html {
    let crash = on_cmd.reform({
        let h = p.host;
        move |_: MouseEvent| Cmd::fault(FaultAction { crash: Some(h), ..FaultAction::default() })
    });
    let restart = on_cmd.reform({
        let h = p.host;
        move |_: MouseEvent| Cmd::fault(FaultAction { restart: Some(h), ..FaultAction::default() })
    });
    let crashed = p.state == HostState::Crashed;
    let what = match p.state {
        HostState::Leader => format!("holds the Lease: its {} controllers run", p.controllers),
        HostState::Standby => "waits for the Lease: its informers and controllers are stopped".to_string(),
        HostState::Running => format!("runs {} controller{}", p.controllers, if p.controllers == 1 { "" } else { "s" }),
        HostState::Crashed => "down: queues, caches and in-memory state lost".to_string(),
    };
    html! {
        <li key={p.host.index()} class={classes!("proc", format!("st-{}", p.state.as_str()))} data-testid="process" data-name={p.name.clone()}
            data-state={p.state.as_str()}>
            <span class="proc-name" title={if *p.name != *p.component { format!("{} replica {}", p.component, p.name) } else { p.component.to_string() }}>
                <b>{ p.name.to_string() }</b>
            </span>
            <span class={classes!("badge", format!("b-proc-{}", p.state.as_str()))} title={what}>{ p.state.as_str() }</span>
            <button class="btn small danger" data-testid="process-crash" data-name={p.name.clone()} disabled={crashed}
                onclick={crash} title="Kill the process (it loses its queues and caches; a held Lease stays until it expires)">
                { "Crash" }
            </button>
            <button class="btn small" data-testid="process-restart" data-name={p.name.clone()} disabled={!crashed}
                onclick={restart} title="Start the process again (a controller manager replica runs for the Lease)">
                { "Restart" }
            </button>
        </li>
    }
}

pub fn control_plane_panel(props: &ControlPlaneProps) -> Html {
    let v = &props.view;
    let lease = match &v.lease {
        Some(l) => {
            let renewed = l.renewed.map_or("never".to_string(), |t| {
                let age = props.now.saturating_sub(t);
                let expired = age > Millis::from(l.duration_s.max(0).unsigned_abs()) * 1000;
                format!("{} ago{}", fmt_dur(age), if expired { " (expired: any replica may take it)" } else { "" })
            });
            html! {
                <p class="lease" title="kube-system/kube-controller-manager: the replica holding it runs the controllers">
                    <span class="wide-only">{ "cp-1, cp-2: kube-controller-manager replicas; only the Lease holder runs controllers. " }</span>
                    { "Lease holder " }<b data-testid="lease-holder">{ l.holder.to_string() }</b>
                    { format!(" · renewed {renewed} · duration {} s · transitions {}", l.duration_s, l.transitions) }
                </p>
            }
        }
        None => html! { <p class="lease">{ "Lease: not acquired yet" }</p> },
    };
    html! {
        <section class="panel cp-panel" aria-label="Control plane">
            <h2>{ "Control plane" }</h2>
            <ul class="procs">
                { for v.processes.iter().map(|p| process_row(p, &props.on_cmd)) }
            </ul>
            { lease }
        </section>
    }
}
