//! A small SVG line chart over the last simulated seconds, a value per second; hovering shows the values at a
//! second (kubeloop's own component: a charting library would cost more of the page's size budget than the page
//! draws with it).

use yew::prelude::*;

use crate::charts::HISTORY;
use crate::format::fmt_secs;
use crate::view::ChartView;

const W: f64 = 128.0;
const H: f64 = 24.0;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub chart: ChartView,
}

/// The polyline of `values`, newest at the right of a box of [`HISTORY`] samples, scaled to `max`.
fn points(values: &[u32], max: u32) -> String {
    let step = W / (HISTORY - 1) as f64;
    let offset = HISTORY.saturating_sub(values.len()) as f64 * step;
    let max = f64::from(max.max(1));
    values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{:.1},{:.1}", offset + i as f64 * step, H - 1.0 - f64::from(*v) / max * (H - 3.0)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let c = &props.chart;
    let hover = use_state_eq(|| None::<usize>);
    let svg_ref = use_node_ref();
    let len = c.series.first().map_or(0, |s| s.1.len());
    let max = c.series.iter().flat_map(|s| s.1.iter().copied()).max().unwrap_or(0);
    let onmousemove = {
        let (hover, svg_ref) = (hover.clone(), svg_ref.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(svg) = svg_ref.cast::<web_sys::Element>() else { return };
            let r = svg.get_bounding_client_rect();
            let x = (f64::from(e.client_x()) - r.left()) / r.width().max(1.0);
            let slot = (x * (HISTORY - 1) as f64).round() as i64;
            let i = slot - HISTORY.saturating_sub(len) as i64;
            hover.set((0..len as i64).contains(&i).then_some(i as usize));
        })
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    // Keyboard: the chart takes focus; Left and Right move the second shown, Home and End go to the ends.
    let onkeydown = {
        let hover = hover.clone();
        Callback::from(move |e: KeyboardEvent| {
            let last = len.saturating_sub(1);
            let at = hover.unwrap_or(last);
            let next = match e.key().as_str() {
                "ArrowLeft" => at.saturating_sub(1),
                "ArrowRight" => (at + 1).min(last),
                "Home" => 0,
                "End" => last,
                "Escape" => return hover.set(None),
                _ => return,
            };
            e.prevent_default();
            hover.set((len > 0).then_some(next));
        })
    };
    let onblur = {
        let hover = hover.clone();
        Callback::from(move |_: FocusEvent| hover.set(None))
    };
    let at = hover.unwrap_or(len.saturating_sub(1));
    // With many lines, the caption names only those that are not 0 at that second (the hover shows each second).
    let many = c.series.len() > 2;
    let values = c
        .series
        .iter()
        .map(|(label, v)| (label, v.get(at).copied().unwrap_or(0)))
        .filter(|(_, n)| !many || *n > 0)
        .map(|(label, n)| if c.series.len() == 1 { n.to_string() } else { format!("{label} {n}") })
        .collect::<Vec<_>>()
        .join(" · ");
    let values = if values.is_empty() { "all 0".to_string() } else { values };
    let when = c.end.saturating_sub((len.saturating_sub(1 + at)) as u64 * 1000);
    let caption = match *hover {
        Some(_) => format!("at {}: {values}", fmt_secs(when)),
        None => values,
    };
    html! {
        <figure class="chart" data-testid="chart" data-metric={c.metric} data-peak={max.to_string()}>
            <figcaption title={format!("{}: {caption}", c.title)}><b>{ c.title }</b>{ " " }<span class="chart-now">{ caption }</span></figcaption>
            <svg ref={svg_ref} width={W.to_string()} height={H.to_string()} viewBox={format!("0 0 {W} {H}")} role="img"
                aria-label={format!("{} over the last {len} simulated seconds, peak {max}", c.title)} {onmousemove} {onmouseleave}
                tabindex="0" {onkeydown} {onblur}>
                <line x1="0" y1={(H - 1.0).to_string()} x2={W.to_string()} y2={(H - 1.0).to_string()} class="spark-base" />
                { for c.series.iter().enumerate().map(|(i, (_, v))| html! {
                    <polyline points={points(v, max)} class={classes!("chart-line", format!("s{i}"))} />
                }) }
                if let Some(i) = *hover {
                    <line class="chart-cursor" x1={((HISTORY.saturating_sub(len) + i) as f64 * W / (HISTORY - 1) as f64).to_string()} y1="0"
                        x2={((HISTORY.saturating_sub(len) + i) as f64 * W / (HISTORY - 1) as f64).to_string()} y2={H.to_string()} />
                }
                <text x={(W - 1.0).to_string()} y="8" class="spark-max" text-anchor="end">{ max }</text>
            </svg>
        </figure>
    }
}
