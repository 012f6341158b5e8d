//! The lessons: a bar of one-click presets with the node failure timing choice, and the panel of the lesson being
//! played (what to watch, its script with what each step did, live figures from the simulation).

use std::rc::Rc;

use kubeloop_engine::sim::TimingProfile;
use yew::prelude::*;

use crate::format::fmt_clock;
use crate::lessons::LESSONS;
use crate::liverun::{profile_label, Cmd};
use crate::view::LessonView;

#[derive(Properties, PartialEq)]
pub struct LessonBarProps {
    pub active: Option<&'static str>,
    pub timing: TimingProfile,
    pub on_cmd: Callback<Cmd>,
}

#[component]
pub fn LessonBar(props: &LessonBarProps) -> Html {
    let on_timing = props.on_cmd.reform(|e: Event| {
        let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
        Cmd::SetTiming(if v == "fast-demo" { TimingProfile::FastDemo } else { TimingProfile::Real })
    });
    let timing = props.timing.as_str();
    html! {
        <nav class="lesson-bar" aria-label="Lessons">
            <span class="lb-title">{ "Lessons" }</span>
            { for LESSONS.iter().map(|l| {
                let start = props.on_cmd.reform(move |_: MouseEvent| Cmd::StartLesson(l.id, None));
                let active = props.active == Some(l.id);
                html! {
                    <button key={l.id} class={classes!("btn", "small", "lesson-btn", active.then_some("primary"))}
                        data-testid="lesson" data-lesson={l.id} aria-pressed={if active { "true" } else { "false" }}
                        title={format!("{}: a fresh simulation (same seed) set up for this lesson, then its script runs. {}", l.title, l.watch)}
                        onclick={start}>
                        { l.short }
                    </button>
                }
            }) }
            <label class="timing" title="The node lifecycle timings: node-monitor-grace-period and the pods' default tolerations. Changing them rebuilds the simulation with the same seed.">
                <span>{ "node failure" }<span class="wide-only">{ " timing" }</span></span>
                <select data-testid="timing-profile" onchange={on_timing} value={timing}>
                    <option value="real" selected={timing == "real"}>{ profile_label(TimingProfile::Real) }</option>
                    <option value="fast-demo" selected={timing == "fast-demo"}>{ profile_label(TimingProfile::FastDemo) }</option>
                </select>
                <span class="muted wide-only">{ "(rebuilds the simulation)" }</span>
            </label>
        </nav>
    }
}

#[derive(Properties, PartialEq)]
pub struct LessonPanelProps {
    pub lesson: Rc<LessonView>,
    pub timing: TimingProfile,
    pub on_cmd: Callback<Cmd>,
}

#[component]
pub fn LessonPanel(props: &LessonPanelProps) -> Html {
    let l = &props.lesson;
    let stop = props.on_cmd.reform(|_: MouseEvent| Cmd::StopLesson);
    let id = l.id;
    let restart = props.on_cmd.reform(move |_: MouseEvent| Cmd::StartLesson(id, None));
    let fast = props.on_cmd.reform(move |_: MouseEvent| Cmd::StartLesson(id, Some(TimingProfile::FastDemo)));
    let pending = l.steps.iter().filter(|s| s.2.is_none()).count();
    html! {
        <section class="panel lesson-panel" aria-label={format!("Lesson: {}", l.title)} data-testid="lesson-panel"
            data-lesson={l.id}>
            <div class="panel-head">
                <h2>{ format!("Lesson: {}", l.title) }</h2>
                <span class="muted" title="Simulated time since the lesson started">{ format!("+{}", fmt_clock(l.elapsed)) }</span>
                <button class="btn small" onclick={restart} data-testid="lesson-restart" title="Start this lesson again (fresh simulation)">{ "↺" }</button>
                if pending > 0 {
                    <button class="btn small" onclick={stop} data-testid="lesson-stop" title="Do not run the remaining steps">{ "stop script" }</button>
                }
            </div>
            <div class="lesson-body">
                <p class="watch">{ l.watch }</p>
                if l.offer_fast_demo && props.timing == TimingProfile::Real {
                    <p class="fast-offer">
                        { "Real timings: a dead node's pods are evicted 50 s + 300 s after it stops. " }
                        <button class="btn small" data-testid="lesson-fast-demo" onclick={fast}>
                            { "run it with the fast demo timings (20 s / 30 s)" }
                        </button>
                    </p>
                }
                if !l.figures.is_empty() {
                    <dl class="facts figures" data-testid="lesson-figures">
                        { for l.figures.iter().map(|(k, v)| html! {
                            <><dt>{ k.clone() }</dt><dd>{ v.clone() }</dd></>
                        }) }
                    </dl>
                }
                if let Some(c) = l.events {
                    <p class="muted">{ format!("The event stream shows the {c} controller's rows (change the filter to see all).") }</p>
                }
                <ol class="steps">
                    { for l.steps.iter().map(|(at, label, done)| html! {
                        <li class={classes!("step", done.is_some().then_some("done"))} data-testid="lesson-step"
                            data-done={if done.is_some() { "true" } else { "false" }}>
                            <span class="step-at">{ format!("+{}", fmt_clock(*at)) }</span>
                            <span class="step-mark">{ if done.is_some() { "✓" } else { "…" } }</span>
                            <span class="step-label">{ label.clone() }</span>
                            if let Some(r) = done {
                                <span class="step-result" title={r.clone()}>{ r.clone() }</span>
                            }
                        </li>
                    }) }
                </ol>
            </div>
        </section>
    }
}
