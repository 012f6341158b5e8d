//! The header: time controls (play/pause, step, speed), the simulated clock and the seed.

use yew::prelude::*;

use crate::cmd::Cmd;
use crate::format::fmt_secs;
use crate::view::{Speed, TimeView};

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub time: TimeView,
    pub on_cmd: Callback<Cmd>,
}

/// Reloads the page with `?seed=N`.
fn restart_with(seed: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_search(&format!("seed={seed}"));
    }
}

#[component]
pub fn Header(props: &HeaderProps) -> Html {
    let t = &props.time;
    let seed_text = use_state(|| t.seed.to_string());
    let play = {
        let playing = t.playing;
        props.on_cmd.reform(move |_: MouseEvent| Cmd::SetPlaying(!playing))
    };
    let step = props.on_cmd.reform(|_: MouseEvent| Cmd::Step);
    let export = props.on_cmd.reform(|_: MouseEvent| Cmd::Export);
    let share = props.on_cmd.reform(|_: MouseEvent| Cmd::Share);
    let reset = {
        let interventions = t.interventions;
        Callback::from(move |_: MouseEvent| {
            let edited = crate::components::editor::current_text().is_some_and(|e| e != crate::examples::WEB);
            if interventions > 0 || edited {
                let asked = web_sys::window().map(|w| {
                    w.confirm_with_message(
                        "Reset to the default cluster and text? This run and your editor text are discarded (Export keeps the run first).",
                    )
                });
                if !matches!(asked, Some(Ok(true))) {
                    return;
                }
            }
            crate::persist::reset();
        })
    };
    let import = {
        let on_cmd = props.on_cmd.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                crate::share::read_scenario(file, on_cmd.clone());
            }
            input.set_value("");
        })
    };
    let speed = {
        let on_cmd = props.on_cmd.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            if let Some(s) = Speed::parse(&v) {
                on_cmd.emit(Cmd::SetSpeed(s));
            }
        })
    };
    let seed_input = {
        let seed_text = seed_text.clone();
        Callback::from(move |e: InputEvent| {
            seed_text.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value());
        })
    };
    let restart = {
        let seed_text = seed_text.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let v = seed_text.trim().to_string();
            if v.parse::<u64>().is_ok() {
                restart_with(&v);
            }
        })
    };
    let seed_valid = seed_text.trim().parse::<u64>().is_ok();
    let replay = {
        let seed_text = seed_text.clone();
        let on_cmd = props.on_cmd.clone();
        Callback::from(move |_: MouseEvent| on_cmd.emit(Cmd::Replay(seed_text.trim().parse::<u64>().ok())))
    };
    let speed_value = t.speed.value();
    let lag = if t.lagging {
        let eff = if t.effective >= 10.0 { format!("{:.0}", t.effective) } else { format!("{:.1}", t.effective) };
        html! {
            <span class="lag" title="The browser cannot run the simulation as fast as asked: the clock runs slower, honestly.">
                { format!("⚠ behind: ×{eff}") }
            </span>
        }
    } else {
        html! {}
    };
    html! {
        <header class="top">
            <div class="brand">
                <span class="logo" aria-hidden="true">{ "⟳" }</span>
                <span class="name">{ "kubeloop" }</span>
                <span class="tagline">{ "a Kubernetes control plane, simulated in your tab" }</span>
            </div>
            <div class="time" role="group" aria-label="Simulated time">
                <button
                    data-testid="play-pause"
                    class={classes!("btn", (!t.playing).then_some("primary"))}
                    aria-pressed={if t.playing { "true" } else { "false" }}
                    onclick={play}
                >
                    { if t.playing { "❚❚ Pause" } else { "▶ Play" } }
                </button>
                <button
                    data-testid="step"
                    class="btn"
                    title="Pause and run the next 100 ms of simulated time (or up to the next event)"
                    onclick={step}
                >
                    { "Step" }
                </button>
                <label class="speed">
                    <span>{ "speed" }</span>
                    <select data-testid="speed" onchange={speed} value={speed_value.clone()}>
                        { for ["1", "10", "100", "max"].iter().map(|v| html! {
                            <option value={*v} selected={*v == speed_value}>
                                { if *v == "max" { "max".to_string() } else { format!("{v}×") } }
                            </option>
                        }) }
                    </select>
                </label>
                <span class="clock" title="Simulated time since the cluster started">
                    <span class="clock-label">{ "t =" }</span>
                    <span data-testid="sim-time">{ fmt_secs(t.now) }</span>
                </span>
                { lag }
            </div>
            <span class="history" title="The run's history hash, as `kubeloop run` prints it: the same seed and the same interventions at the same simulated times give the same hash">
                <span class="clock-label">{ "hash" }</span>
                <code data-testid="history-hash">{ format!("{:016x}", t.history_hash) }</code>
                <button data-testid="export-scenario" class="btn" type="button" onclick={export}
                    title="Download the run so far as a scenario file: `kubeloop run FILE` replays it to this hash">
                    { "Export" }
                </button>
                <button data-testid="share-link" class="btn" type="button" onclick={share}
                    title="A link that holds the whole run (in the part after #, which no server sees): opened, it replays to this time and hash and pauses there">
                    { "Share" }
                </button>
                <button data-testid="reset-default" class="btn" type="button" onclick={reset}
                    title="Back to the default cluster and text: the kept session is forgotten (asks first when work would be lost)">
                    { "Reset" }
                </button>
                <label class="btn import" title="Open a scenario file (an export, an example; or drop one on the page): it is replayed to its end and paused there">
                    { "Open…" }
                    <input data-testid="import-scenario" type="file" accept=".yaml,.yml,text/yaml" onchange={import} />
                </label>
            </span>
            <form class="seed" onsubmit={restart} title="The same seed and the same actions replay the same history">
                <label>
                    <span>{ "seed" }</span>
                    <span data-testid="seed" class="seed-value">{ t.seed }</span>
                </label>
                <input
                    type="text"
                    inputmode="numeric"
                    aria-label="New seed"
                    data-testid="seed-input"
                    class={classes!((!seed_valid).then_some("invalid"))}
                    value={(*seed_text).clone()}
                    oninput={seed_input}
                />
                <button class="btn" type="submit" disabled={!seed_valid}
                    title="A fresh page with this seed (the default cluster, nothing of this run)">{ "Restart" }</button>
                <button data-testid="replay" class="btn" type="button" disabled={!seed_valid} onclick={replay}
                    title="This run again from 0: the same starting cluster and interventions at their times, with this seed">
                    { "Replay" }
                </button>
            </form>
        </header>
    }
}
