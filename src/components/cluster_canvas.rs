//! The compact drawing of a large cluster: one cell per node on a canvas, pods as dots when they fit, else as a
//! stacked fill. No DOM per node or pod.

use std::rc::Rc;

use kubeloop_engine::api::Str;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use crate::cmd::Cmd;
use crate::view::{CompactCluster, CompactNode, Ready, Selection};

#[derive(Properties, PartialEq)]
pub struct CanvasProps {
    pub compact: Rc<CompactCluster>,
    pub selected: Option<Str>,
    pub on_cmd: Callback<Cmd>,
}

/// Cell size and spacing for `n` nodes in a canvas `width` pixels wide.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub cell: f64,
    pub gap: f64,
    pub cols: usize,
    pub rows: usize,
}

/// Zoom levels: the cell size times this.
pub const ZOOMS: [f64; 4] = [1.0, 1.5, 2.25, 3.5];

pub fn grid(n: usize, width: f64, zoom: f64) -> Grid {
    let base: f64 = match n {
        0..=300 => 40.0,
        301..=800 => 28.0,
        801..=2000 => 18.0,
        _ => 12.0,
    };
    let cell = (base * zoom).round();
    let gap = if cell >= 28.0 { 4.0 } else { 2.0 };
    let cols = ((width + gap) / (cell + gap)).floor().max(1.0) as usize;
    let rows = n.div_ceil(cols);
    Grid { cell, gap, cols, rows }
}

const RUNNING: &str = "#2e9d5b";
const PENDING: &str = "#e0a100";
const TERMINATING: &str = "#8a94a6";
const OTHER: &str = "#d64545";

fn draw_node(cx: &CanvasRenderingContext2d, n: &CompactNode, x: f64, y: f64, s: f64, selected: bool) {
    let bg = match (n.alive, n.ready) {
        (false, _) => "#fbe3e3",
        (true, Ready::True) => "#eef6f0",
        (true, Ready::False) => "#fbe3e3",
        (true, Ready::Unknown) => "#eceff3",
    };
    cx.set_fill_style_str(bg);
    cx.fill_rect(x, y, s, s);
    cx.set_stroke_style_str(if selected {
        "#1f5fbf"
    } else if !n.alive {
        "#c43c3c"
    } else {
        "#c9d2de"
    });
    cx.set_line_width(if selected { 2.0 } else { 1.0 });
    cx.stroke_rect(x + 0.5, y + 0.5, s - 1.0, s - 1.0);
    if n.unschedulable {
        cx.set_stroke_style_str("#7a4fd6");
        cx.begin_path();
        cx.move_to(x + 2.0, y + s - 2.0);
        cx.line_to(x + s - 2.0, y + 2.0);
        cx.stroke();
    }
    let groups = [(n.running, RUNNING), (n.pending, PENDING), (n.terminating, TERMINATING), (n.other, OTHER)];
    let total: u32 = groups.iter().map(|g| g.0).sum();
    if total == 0 {
        return;
    }
    let inner = s - 4.0;
    let dot = 3.0;
    let per_row = ((inner + 1.0) / (dot + 1.0)).floor().max(1.0) as u32;
    if s >= 28.0 && total <= per_row * per_row {
        let mut i = 0;
        for (count, colour) in groups {
            cx.set_fill_style_str(colour);
            for _ in 0..count {
                let (r, c) = (i / per_row, i % per_row);
                cx.fill_rect(x + 2.0 + c as f64 * (dot + 1.0), y + 2.0 + r as f64 * (dot + 1.0), dot, dot);
                i += 1;
            }
        }
    } else {
        // Stacked fill from the bottom, scaled to the node's pod capacity.
        let cap = n.capacity.max(total).max(1) as f64;
        let mut top = y + s - 2.0;
        for (count, colour) in groups {
            if count == 0 {
                continue;
            }
            let h = (inner * count as f64 / cap).max(1.0);
            cx.set_fill_style_str(colour);
            cx.fill_rect(x + 2.0, top - h, inner, h);
            top -= h;
        }
    }
}

/// The canvas's width: its box's (as last observed, else read now), less room for a scroll bar.
fn canvas_width(canvas: &HtmlCanvasElement, observed: Option<i32>) -> f64 {
    let box_width = observed.unwrap_or_else(|| canvas.parent_element().map_or(800, |p| p.client_width()));
    box_width.max(200) as f64 - 4.0
}

/// What the canvas shows: the cluster and the selection, drawn on a grid of this width, zoom and pixel ratio.
struct Drawn {
    cluster: Rc<CompactCluster>,
    selected: Option<Str>,
    width: f64,
    zoom: f64,
    dpr: f64,
}

/// Draws the cluster. Where the canvas shows `before` on the same grid, only the cells that changed are drawn again:
/// at 5,000 nodes drawing every cell takes tens of milliseconds, and a snapshot changes few of them.
fn draw(
    canvas: &HtmlCanvasElement,
    c: &Rc<CompactCluster>,
    selected: Option<&Str>,
    zoom: f64,
    observed: Option<i32>,
    before: Option<&Drawn>,
) -> Option<Drawn> {
    let width = canvas_width(canvas, observed);
    let g = grid(c.nodes.len(), width, zoom);
    let height = (g.rows as f64 * (g.cell + g.gap)).max(g.cell);
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(1.0, 3.0);
    // Resized only when its size changes: a resize makes the browser lay the page out again (and clears it).
    let (w, h) = ((width * dpr) as u32, (height * dpr) as u32);
    let resized = (canvas.width(), canvas.height()) != (w, h);
    if resized {
        canvas.set_width(w);
        canvas.set_height(h);
        let _ = canvas.style().set_property("width", &format!("{width}px"));
        let _ = canvas.style().set_property("height", &format!("{height}px"));
    }
    let cx = canvas.get_context("2d").ok().flatten().and_then(|o| o.dyn_into::<CanvasRenderingContext2d>().ok())?;
    let _ = cx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    let same_grid =
        |b: &Drawn| (b.width, b.zoom, b.dpr) == (width, zoom, dpr) && b.cluster.nodes.len() == c.nodes.len();
    let before = before.filter(|b| !resized && same_grid(b));
    if before.is_none() {
        cx.clear_rect(0.0, 0.0, width, height);
    }
    let is = |sel: Option<&Str>, n: &CompactNode| sel.is_some_and(|s| *s == n.name);
    for (i, n) in c.nodes.iter().enumerate() {
        let (r, col) = (i / g.cols, i % g.cols);
        let x = col as f64 * (g.cell + g.gap);
        let y = r as f64 * (g.cell + g.gap);
        if let Some(b) = before {
            let old = &b.cluster.nodes[i];
            if old == n && is(b.selected.as_ref(), old) == is(selected, n) {
                continue;
            }
            // The cell and the half of the gap around it that its selected border reaches.
            cx.clear_rect(x - 1.0, y - 1.0, g.cell + 2.0, g.cell + 2.0);
        }
        draw_node(&cx, n, x, y, g.cell, is(selected, n));
    }
    Some(Drawn { cluster: c.clone(), selected: selected.cloned(), width, zoom, dpr })
}

/// The node under a point of the canvas (CSS pixels from its top left).
fn node_at(c: &CompactCluster, width: f64, zoom: f64, x: f64, y: f64) -> Option<usize> {
    let g = grid(c.nodes.len(), width, zoom);
    let col = (x / (g.cell + g.gap)).floor();
    let row = (y / (g.cell + g.gap)).floor();
    if col < 0.0 || row < 0.0 || col as usize >= g.cols {
        return None;
    }
    let i = row as usize * g.cols + col as usize;
    (i < c.nodes.len()).then_some(i)
}

/// What hovering a node says of it.
fn describe(n: &CompactNode) -> String {
    let pods = n.running + n.pending + n.terminating + n.other;
    let mut s = format!(
        "{} · {}{}{} · {} running, {} pending",
        n.name,
        n.ready.label(),
        if n.alive { "" } else { " · kubelet down" },
        if n.unschedulable { " · cordoned" } else { "" },
        n.running,
        n.pending
    );
    if n.terminating > 0 {
        s.push_str(&format!(", {} terminating", n.terminating));
    }
    if n.other > 0 {
        s.push_str(&format!(", {} failed or other", n.other));
    }
    s.push_str(&format!(" · {pods}/{} pods", n.capacity));
    s
}

#[component]
pub fn ClusterCanvas(props: &CanvasProps) -> Html {
    let canvas_ref = use_node_ref();
    let zoom = use_state_eq(|| 0usize);
    let hovered = use_state_eq(|| None::<usize>);
    let scale = ZOOMS[(*zoom).min(ZOOMS.len() - 1)];
    // The width of the canvas's box, followed as it changes: reading it at every draw made the browser lay the whole
    // page out in the middle of the frame (a ResizeObserver tells it after layout, and once when it starts).
    let observed = use_state_eq(|| None::<i32>);
    {
        let (canvas_ref, observed) = (canvas_ref.clone(), observed.clone());
        use_effect_with((), move |_| {
            let watching = canvas_ref.cast::<HtmlCanvasElement>().and_then(|c| c.parent_element()).and_then(|parent| {
                let seen = parent.clone();
                let changed = Closure::<dyn FnMut()>::new(move || observed.set(Some(seen.client_width())));
                let ro = web_sys::ResizeObserver::new(changed.as_ref().unchecked_ref()).ok()?;
                ro.observe(&parent);
                Some((ro, changed))
            });
            move || {
                if let Some((ro, _changed)) = watching {
                    ro.disconnect();
                }
            }
        });
    }
    let width = *observed;
    let drawn = use_mut_ref(|| None::<Drawn>);
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with((props.compact.clone(), props.selected.clone(), *zoom, width), move |(c, sel, _, _)| {
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                let now = draw(&canvas, c, sel.as_ref(), scale, width, drawn.borrow().as_ref());
                *drawn.borrow_mut() = now;
            }
        });
    }
    {
        // A node selected (clicked, searched, a pod's) is scrolled into view in the cluster's scrolling body, once
        // per selection.
        let (canvas_ref, compact) = (canvas_ref.clone(), props.compact.clone());
        use_effect_with((props.selected.clone(), *zoom), move |(sel, _)| {
            let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else { return };
            let Some(i) = sel.as_deref().and_then(|s| compact.nodes.iter().position(|n| &*n.name == s)) else { return };
            let Some(scroller) = canvas.closest(".cluster-body").ok().flatten() else { return };
            let g = grid(compact.nodes.len(), canvas_width(&canvas, width), scale);
            let (c, s) = (canvas.get_bounding_client_rect(), scroller.get_bounding_client_rect());
            let top = f64::from(scroller.scroll_top());
            let y = c.top() - s.top() + top + (i / g.cols) as f64 * (g.cell + g.gap);
            let h = f64::from(scroller.client_height());
            if y < top || y + g.cell > top + h {
                scroller.set_scroll_top((y - h / 2.0).max(0.0) as i32);
            }
        });
    }
    let at = {
        let (compact, canvas_ref) = (props.compact.clone(), canvas_ref.clone());
        move |e: &MouseEvent| {
            let canvas = canvas_ref.cast::<HtmlCanvasElement>()?;
            node_at(&compact, f64::from(canvas.client_width()), scale, f64::from(e.offset_x()), f64::from(e.offset_y()))
        }
    };
    let onclick = {
        let (compact, on_cmd, at) = (props.compact.clone(), props.on_cmd.clone(), at.clone());
        Callback::from(move |e: MouseEvent| {
            if let Some(n) = at(&e).and_then(|i| compact.nodes.get(i)) {
                on_cmd.emit(Cmd::Select(Selection::Node(n.name.clone())));
            }
        })
    };
    let onmousemove = {
        let hovered = hovered.clone();
        Callback::from(move |e: MouseEvent| hovered.set(at(&e)))
    };
    let onmouseleave = {
        let hovered = hovered.clone();
        Callback::from(move |_: MouseEvent| hovered.set(None))
    };
    let zoom_by = |d: isize| {
        let zoom = zoom.clone();
        Callback::from(move |_: MouseEvent| {
            zoom.set((*zoom as isize + d).clamp(0, ZOOMS.len() as isize - 1) as usize);
        })
    };
    let c = &props.compact;
    let hover = (*hovered).and_then(|i| c.nodes.get(i)).map(describe);
    let (ready, dead) =
        c.nodes.iter().fold((0, 0), |(r, d), n| (r + (n.ready == Ready::True) as usize, d + (!n.alive) as usize));
    html! {
        <div class="canvas-wrap">
            <div class="canvas-tools">
                <span class="zoom" role="group" aria-label="Zoom">
                    <button type="button" class="btn small" data-testid="cluster-zoom-out" disabled={*zoom == 0}
                        onclick={zoom_by(-1)} aria-label="Zoom out">{ "−" }</button>
                    <span data-testid="cluster-zoom">{ format!("{}%", (scale * 100.0).round()) }</span>
                    <button type="button" class="btn small" data-testid="cluster-zoom-in" disabled={*zoom + 1 >= ZOOMS.len()}
                        onclick={zoom_by(1)} aria-label="Zoom in">{ "+" }</button>
                </span>
                <span class="hover" data-testid="cluster-hover" aria-live="off">
                    { hover.clone().unwrap_or_else(|| "hover a node for its pods; click it for its details".into()) }
                </span>
            </div>
            <canvas
                    ref={canvas_ref}
                    class="cluster-canvas"
                    data-testid="cluster-canvas"
                    data-zoom={scale.to_string()}
                    role="img"
                    title={hover.unwrap_or_default()}
                    aria-label={format!("{} nodes ({ready} ready, {dead} with the kubelet down); pods drawn as dots or fills: green running, amber pending, grey terminating, red failed", c.nodes.len())}
                    {onclick}
                    {onmousemove}
                    {onmouseleave}
                />
            <div class="canvas-legend">
                <span><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" rx="2" fill={RUNNING} /></svg>{ "running" }</span>
                <span><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" rx="2" fill={PENDING} /></svg>{ "pending" }</span>
                <span><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" rx="2" fill={TERMINATING} /></svg>{ "terminating" }</span>
                <span><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" rx="2" fill={OTHER} /></svg>{ "failed/other" }</span>
                <span><i class="dead"></i>{ "kubelet down" }</span>
                <span><i class="cordon"></i>{ "cordoned (diagonal)" }</span>
            </div>
        </div>
    }
}
