//! The run's timeline, under the page: a slider over the whole run (from its first checkpoint to now) that shows the
//! cluster as it was at any moment, read-only, marks for the person's interventions and notable Events, a way back
//! to live, and what the checkpoints are (kubeloop's own memory policy).

use yew::prelude::*;

use crate::cmd::Cmd;
use crate::format::fmt_secs;
use crate::view::TimelineView;

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
    let value = t.at.unwrap_or(t.max);
    let mark = |m: &crate::view::MarkView| {
        let more = if m.more > 0 { format!(" (and {} more here)", m.more) } else { String::new() };
        let at = m.at;
        html! {
            <button
                class={classes!("mark", m.person.then_some("person"))}
                style={format!("left:{:.2}%", m.pct)}
                title={format!("{}: {}{more}", fmt_secs(m.at), m.what)}
                onclick={on_cmd.reform(move |_: MouseEvent| Cmd::Scrub(at))}
            />
        }
    };
    let policy = format!(
        "{} checkpoint(s) of this run, one every {} events (kubeloop's own bound: at most {} at this cluster size, thinned by halves); a scrub re-runs the events since the nearest",
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
                <div class="timeline-marks">{ for t.marks.iter().map(mark) }</div>
            </div>
            <span class="timeline-said" title={policy}>{ said }</span>
        </div>
    }
}
