//! The lessons: a bar of one-click presets with the node failure timing choice, and the panel of the lesson being
//! played (what to watch, its script with what each step did, live figures from the simulation).

use std::rc::Rc;

use kubeloop_engine::sim::TimingProfile;
use yew::prelude::*;

use crate::cmd::Cmd;
use crate::format::{fmt_clock, fmt_dur};
use crate::liverun::profile_label;
use crate::view::{AskView, CheckView, LessonView};

/// The arguments of its view function (not a component's props: nothing compares them).
pub struct LessonBarProps {
    pub active: Option<&'static str>,
    pub timing: TimingProfile,
    pub on_cmd: Callback<Cmd>,
}

pub fn lesson_bar(props: &LessonBarProps) -> Html {
    let on_timing = props.on_cmd.reform(|e: Event| {
        let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
        Cmd::SetTiming(if v == "fast-demo" { TimingProfile::FastDemo } else { TimingProfile::Real })
    });
    let timing = props.timing.as_str();
    html! {
        <nav class="lesson-bar" aria-label="Lessons">
            <span class="lb-title">{ "Lessons" }</span>
            { for crate::lessons::all().iter().map(|l| {
                let start = props.on_cmd.reform(move |_: MouseEvent| Cmd::StartLesson(l.id, None));
                let active = props.active == Some(l.id);
                html! {
                    <button key={l.id} class={classes!("btn", "small", "lesson-btn", active.then_some("primary"))}
                        data-testid="lesson" data-lesson={l.id} aria-pressed={if active { "true" } else { "false" }}
                        title={format!("{}: a fresh simulation (same seed) set up for this lesson, then its script runs.", l.title)}
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

/// The arguments of its view function (not a component's props: nothing compares them).
pub struct LessonPanelProps {
    pub lesson: Rc<LessonView>,
    pub timing: TimingProfile,
    pub on_cmd: Callback<Cmd>,
}

/// The question waiting for a prediction: its choices, and a way to skip it.
fn ask(a: &AskView, on_cmd: &Callback<Cmd>) -> Html {
    let skip = on_cmd.reform(|_: MouseEvent| Cmd::Predict(None));
    html! {
        <div class="lesson-ask" data-testid="lesson-ask" data-step={a.step.to_string()} role="group" aria-label="Predict first">
            <p class="ask-q"><b>{ format!("Predict, before step {}: ", a.step + 1) }</b>{ a.question }</p>
            <div class="ask-choices">
                { for a.choices.iter().enumerate().map(|(i, c)| {
                    let pick = on_cmd.reform(move |_: MouseEvent| Cmd::Predict(Some(i)));
                    html! {
                        <button class="btn small choice" data-testid="lesson-choice" data-choice={i.to_string()} onclick={pick}>
                            { format!("{}. {c}", (b'a' + i as u8) as char) }
                        </button>
                    }
                }) }
            </div>
            <button class="btn small link" data-testid="lesson-skip" onclick={skip}>{ "skip: just run it" }</button>
            <span class="muted small">{ " The clock holds until you answer." }</span>
        </div>
    }
}

/// A question's check under its step: what it looks for, what it saw, and the prediction against it. The newest
/// one is also shown at the top of the panel (`hook` false: the step's own is the one tests count).
fn check(c: &CheckView, hook: bool) -> Html {
    let right = c.chosen.map(|ch| ch == c.answer);
    let mark = match c.state {
        "passed" => "✓",
        "failed" => "✗",
        "checking" => "…",
        _ => "?",
    };
    let seen = match (&c.seen, c.state) {
        (Some((seen, after)), "passed") => format!("after {}: {seen}", fmt_dur(*after)),
        (Some((seen, after)), _) => format!("not as the lesson expects, after {}: {seen}", fmt_dur(*after)),
        (None, "checking") => format!("checking: {}…", c.what),
        _ if c.question.is_empty() => format!("after the step: {}", c.what),
        _ => format!("asks first: {}", c.question),
    };
    html! {
        <div class={classes!("check", c.state)} data-testid={hook.then_some("lesson-check")} data-state={c.state}
            data-right={right.map_or("", |r| if r { "true" } else { "false" })}>
            <span class="check-mark" aria-hidden="true">{ mark }</span>
            <span class="check-seen">{ seen }</span>
            if let Some(chosen) = c.chosen {
                <span class="check-prediction">
                    { match (right, c.state) {
                        (Some(true), "passed") => format!("You predicted it: {chosen}"),
                        (Some(true), _) => format!("You predicted: {chosen}"),
                        _ => format!("You predicted: {chosen}. What the control loop does: {}", c.answer),
                    } }
                </span>
            }
        </div>
    }
}

pub fn lesson_panel(props: &LessonPanelProps) -> Html {
    let l = &props.lesson;
    let stop = props.on_cmd.reform(|_: MouseEvent| Cmd::StopLesson);
    let id = l.id;
    let restart = props.on_cmd.reform(move |_: MouseEvent| Cmd::StartLesson(id, None));
    let fast = props.on_cmd.reform(move |_: MouseEvent| Cmd::StartLesson(id, Some(TimingProfile::FastDemo)));
    let pending = l.steps.iter().filter(|s| s.2.is_none()).count();
    // The lesson's text tells what happens: it waits until the questions have been asked.
    let spoils = l.asks_on && l.checks.iter().any(|c| c.state == "pending" && !c.question.is_empty());
    let asks_toggle = props
        .on_cmd
        .reform(|e: Event| Cmd::LessonAsks(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked()));
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
                if l.checks.iter().any(|c| !c.question.is_empty()) {
                    <label class="asks-toggle" title="Before a step, the lesson asks what you expect; after it, a check says what the simulation did">
                        <input type="checkbox" data-testid="lesson-asks" checked={l.asks_on} onchange={asks_toggle} />
                        { "ask me first" }
                    </label>
                }
            </div>
            <div class="lesson-body">
                if let Some(a) = &l.asking { { ask(a, &props.on_cmd) } }
                if let Some(c) = l.checks.iter().rfind(|c| c.state != "pending").filter(|_| l.asking.is_none()) {
                    <div class="check-latest">{ check(c, false) }</div>
                }
                if spoils {
                    <p class="watch muted">{ "What the lesson shows is told once you have made your predictions (or untick \"ask me first\")." }</p>
                } else {
                    <p class="watch">{ l.watch }</p>
                }
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
                    { for l.steps.iter().enumerate().map(|(i, (at, label, done))| html! {
                        <li class={classes!("step", done.is_some().then_some("done"))} data-testid="lesson-step"
                            data-done={if done.is_some() { "true" } else { "false" }}>
                            <span class="step-at">{ format!("+{}", fmt_clock(*at)) }</span>
                            <span class="step-mark">{ if done.is_some() { "✓" } else { "…" } }</span>
                            <span class="step-label">{ label.clone() }</span>
                            if let Some(r) = done {
                                <span class="step-result" title={r.clone()}>{ r.clone() }</span>
                            }
                            { for l.checks.iter().filter(|c| c.step == i).map(|c| check(c, true)) }
                        </li>
                    }) }
                </ol>
            </div>
        </section>
    }
}
