//! The run's timeline, under the page: a slider over the whole run (from its first checkpoint to now) that shows the
//! cluster as it was at any moment, read-only, marks for the person's interventions and notable Events, a way back
//! to live, and what the checkpoints are (kubeloop's own memory policy).

use yew::prelude::*;

use crate::cmd::Cmd;
use crate::format::fmt_secs;
use crate::view::{ForkView, TimelineView};

pub fn timeline(t: &TimelineView, on_cmd: &Callback<Cmd>) -> Html {
    let scrub = on_cmd.reform(|e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        Cmd::Scrub(input.value().parse::<f64>().map_or(0, |v| v.max(0.0) as u64))
    });
    let drag = on_cmd.reform(|e: InputEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        Cmd::Scrub(input.value().parse::<f64>().map_or(0, |v| v.max(0.0) as u64))
    });
    let live = on_cmd.reform(|_: MouseEvent| Cmd::Live);
    let fork = on_cmd.reform(|_: MouseEvent| Cmd::Fork);
    let value = t.at.unwrap_or(t.max);
    // Drawn in SVG (the page's CSP allows no style attributes): a thousandth of the track per unit.
    let mark = |m: &crate::view::MarkView| {
        let more = if m.more > 0 { format!(" (and {} more here)", m.more) } else { String::new() };
        let at = m.at;
        html! {
            <rect
                class={classes!("mark", m.person.then_some("person"))}
                x={format!("{:.1}", m.pct * 10.0 - 2.0)} y="0" width="4" height="8"
                onclick={on_cmd.reform(move |_: MouseEvent| Cmd::Scrub(at))}
            >
                <title>{ format!("{}: {}{more}", fmt_secs(m.at), m.what) }</title>
            </rect>
        }
    };
    let policy = format!(
        "{} checkpoint(s), one every {} events (kubeloop's own bound: at most {} at this size); a scrub re-runs the events since the nearest",
        t.kept, t.spacing, t.max_kept
    );
    let said = match t.at {
        Some(at) => format!(
            "showing {} of {} (read-only; {} events re-run in {:.0} ms)",
            fmt_secs(at),
            fmt_secs(t.max),
            t.rerun,
            t.scrub_ms
        ),
        None => format!("live at {}", fmt_secs(t.max)),
    };
    html! {
        <div class={classes!("timeline", t.at.is_some().then_some("scrubbed"))} role="group" aria-label="Timeline of the run">
            <button data-testid="timeline-live" class={classes!("btn", t.at.is_some().then_some("primary"))} disabled={t.at.is_none()} onclick={live}
                title="Back to the live cluster (the clock plays again if it played)">{ "● Live" }</button>
            <div class="timeline-track">
                <input type="range" data-testid="timeline" aria-label="Scrub the run"
                    min={t.min.to_string()} max={t.max.to_string()} step="1" value={value.to_string()}
                    data-min={t.min.to_string()} data-max={t.max.to_string()}
                    oninput={drag} onchange={scrub} />
                <svg class="timeline-marks" viewBox="0 0 1000 8" preserveAspectRatio="none" aria-hidden="true">
                    { for t.marks.iter().map(mark) }
                </svg>
            </div>
            <span class="timeline-said" title={policy}>{ said }</span>
            <button data-testid="fork" class="btn" onclick={fork}
                title="Fork the run here: it goes on from this moment, and the page compares it with the run it was forked from">{ "Fork" }</button>
        </div>
    }
}

/// A fork compared with the run it was forked from: where they first diverge, and how their objects differ now.
pub fn fork_panel(f: &ForkView, on_cmd: &Callback<Cmd>) -> Html {
    let close = on_cmd.reform(|_: MouseEvent| Cmd::Unfork);
    let first = f.first.as_ref().map(|(at, ..)| at.to_string());
    let said = |w: &Option<String>| w.clone().unwrap_or_else(|| "no write".into());
    let object = |(name, change, lines): &(String, &'static str, Vec<String>)| {
        html! {
            <li data-testid="fork-object">
                <code>{ name.clone() }</code>{ format!(" {change}") }
                if !lines.is_empty() {
                    <pre class="fork-lines">{ lines.join("\n") }</pre>
                }
            </li>
        }
    };
    html! {
        <div class="fork-diff panel" data-testid="fork-diff" data-first-divergence={first}>
            <div class="panel-head">
                <h2>{ format!("Fork at {} compared with the run it was forked from, at {}", fmt_secs(f.at), fmt_secs(f.until)) }</h2>
                <button class="icon" aria-label="Stop comparing" title="Stop comparing (this run goes on)" onclick={close}>{ "✕" }</button>
            </div>
            <div class="fork-body">
                { match &f.first {
                    None => html! { <p>{ "No divergence yet: both runs made the same writes since the fork." }</p> },
                    Some((at, a, b)) => html! {
                        <p>
                            <strong>{ format!("First divergence at {}", fmt_secs(*at)) }</strong>
                            <br />{ format!("the run forked from: {}", said(a)) }
                            <br />{ format!("this fork: {}", said(b)) }
                        </p>
                    },
                } }
                if f.objects.is_empty() {
                    <p class="muted">{ "Their objects are the same now." }</p>
                } else {
                    <p class="muted">{ format!("{} object(s) differ now (Events left out){}:", f.objects.len() + f.more, if f.more > 0 { format!(", the first {} listed", f.objects.len()) } else { String::new() }) }</p>
                    <ul class="plain fork-objects">{ for f.objects.iter().map(object) }</ul>
                }
                <p class="muted">{ format!("The other run had run to {}; past that it runs on with nothing more done.", fmt_secs(f.end)) }</p>
            </div>
        </div>
    }
}
