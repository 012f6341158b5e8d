//! Desired state: a YAML editor (a transparent textarea over a highlighted copy, scrolled in sync, with line
//! numbers), the examples menu, Apply (button or Ctrl/Cmd+Enter) and its outcome.

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::examples::{self, EXAMPLES};
use crate::highlight::{highlight_lines, Line};
use crate::liverun::Cmd;
use crate::view::{ApplyOutcome, EditorLoad};

/// Line height of the editor in pixels (static/style.css: --editor-lh).
const LINE_HEIGHT: i32 = 18;
/// Above this many characters the editor shows the text unhighlighted and counts its lines once typing pauses
/// (kubeloop's own bound: the browser's textarea stays as fast as it is at the largest accepted manifest, 4 MiB).
const LARGE: usize = 256 * 1024;
/// The pause, in milliseconds.
const PAUSE_MS: i32 = 300;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub apply: Rc<ApplyOutcome>,
    /// Text to show (a lesson's manifests): a new `seq` replaces the editor's text.
    pub load: Rc<EditorLoad>,
    pub on_cmd: Callback<Cmd>,
}

/// Lines drawn around the visible ones (above and below), so that a quick scroll shows text at once.
const OVERSCAN: usize = 30;

/// The window of lines drawn: the highlighted copy and the gutter draw only these (and spacers of the height of the
/// others), so a text of 100,000 lines costs what a screenful does; the textarea holds the whole text.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Window {
    first: usize,
    count: usize,
    total: usize,
}

impl Window {
    fn of(scroll_top: i32, height: i32, total: usize) -> Window {
        let top = (scroll_top.max(0) / LINE_HEIGHT) as usize;
        let first = top.saturating_sub(OVERSCAN).min(total);
        let rows = (height.max(0) / LINE_HEIGHT) as usize + 1;
        let count = (rows + 2 * OVERSCAN).min(total - first);
        Window { first, count, total }
    }

    /// A block as tall as `lines` lines (an SVG's height is an attribute: no inline style under the page's CSP).
    fn spacer(lines: usize) -> Html {
        let h = (lines as u64 * LINE_HEIGHT as u64).to_string();
        html! { <svg class="spacer" width="1" height={h} aria-hidden="true"></svg> }
    }
}

#[derive(Properties)]
struct CodeProps {
    lines: Rc<Vec<Line>>,
    window: Window,
    error_line: Option<usize>,
}

impl PartialEq for CodeProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.lines, &o.lines) && self.window == o.window && self.error_line == o.error_line
    }
}

/// The highlighted copy behind the textarea (the window's lines).
#[component]
fn Highlighted(props: &CodeProps) -> Html {
    let w = props.window;
    html! {
        <>
            { Window::spacer(w.first) }
            { for props.lines.iter().enumerate().map(|(k, l)| {
                let i = w.first + k;
                let err = props.error_line == Some(i + 1);
                html! {
                    <div class={classes!("hl-line", err.then_some("err"))}>
                        { for l.iter().map(|(t, s)| html! { <span class={t.class()}>{ s.clone() }</span> }) }
                        { if l.is_empty() { " " } else { "" } }
                    </div>
                }
            }) }
            { Window::spacer(w.total - w.first - w.count) }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct GutterProps {
    window: Window,
    error_line: Option<usize>,
}

#[component]
fn GutterLines(props: &GutterProps) -> Html {
    let w = props.window;
    html! {
        <>
            { Window::spacer(w.first) }
            { for (w.first + 1..=w.first + w.count).map(|n| {
                let err = props.error_line == Some(n);
                html! {
                    <div class={classes!("gl", err.then_some("err"))} title={err.then(|| "error on this line".to_string())}>
                        { if err { format!("▶{n}") } else { n.to_string() } }
                    </div>
                }
            }) }
            { Window::spacer(w.total - w.first - w.count) }
        </>
    }
}

/// Copies the textarea's scroll position to the highlighted layer and the gutter.
fn sync_scroll(ta: &NodeRef, pre: &NodeRef, gutter: &NodeRef) {
    let Some(ta) = ta.cast::<HtmlElement>() else { return };
    if let Some(pre) = pre.cast::<HtmlElement>() {
        pre.set_scroll_top(ta.scroll_top());
        pre.set_scroll_left(ta.scroll_left());
    }
    if let Some(g) = gutter.cast::<HtmlElement>() {
        g.set_scroll_top(ta.scroll_top());
    }
}

/// The editor's textarea in the page (the component holds its text; the console's `-f -`, the kept session and the
/// crash overlay read it from here).
fn textarea() -> Option<HtmlTextAreaElement> {
    web_sys::window()?.document()?.query_selector("[data-testid=yaml-editor]").ok()??.dyn_into().ok()
}

/// What the editor holds now.
pub fn current_text() -> Option<String> {
    textarea().map(|t| t.value())
}

/// The length of the editor's text in UTF-16 units, without copying it (a 4 MiB text costs to copy).
pub fn current_len() -> Option<usize> {
    textarea().map(|t| t.text_length() as usize)
}

/// A text, equal to another only when it is the same allocation (comparing 4 MiB on every render costs).
#[derive(Clone)]
struct SameText(Rc<str>);

impl PartialEq for SameText {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

/// The byte offset of each line's start (`\n` ends a line; there is always a first line).
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// The page is about to put `new` in the editor: the person's edits (a text other than the one the page last put
/// there) are kept in `replaced`, to restore.
#[inline(never)]
fn keep_edits(
    ta: &NodeRef,
    text: &UseStateHandle<Rc<str>>,
    placed: &std::cell::RefCell<String>,
    replaced: &UseStateHandle<Option<Rc<str>>>,
    new: &str,
) {
    let current = ta.cast::<HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_else(|| text.to_string());
    if current != *placed.borrow() && current != new {
        replaced.set(Some(current.into()));
    }
    *placed.borrow_mut() = new.to_string();
}

#[component]
pub fn Editor(props: &EditorProps) -> Html {
    // The text as the highlighted copy and the gutter draw it. The textarea holds the text itself and is not bound
    // to this state (setting a large value on every keystroke costs a layout of it all): the page puts text in by
    // bumping `put`, and typing updates this state (at once for a small text, after a pause for a large one).
    let text = use_state(|| Rc::<str>::from(examples::WEB));
    let put = use_state(|| 0u64);
    let pause = use_mut_ref(|| None::<(i32, Closure<dyn FnMut()>)>);
    // Whether the text changed since the last apply (then the error marker no longer points at the right line).
    let edited = use_state_eq(|| false);
    let ta_ref = use_node_ref();
    let pre_ref = use_node_ref();
    let gutter_ref = use_node_ref();
    // The window of lines drawn, from the textarea's scroll position and height.
    let view = use_state_eq(|| (0i32, 600i32));
    // Where each line starts, found once per text (not once per render: a render of a 4 MiB text must stay cheap).
    let starts = use_memo(SameText((*text).clone()), |t| line_starts(&t.0));
    let line = |i: usize| {
        let end = starts.get(i + 1).map_or(text.len(), |e| e - 1);
        &text[starts[i]..end]
    };
    let window = Window::of(view.0, view.1, starts.len());
    // Above LARGE the textarea shows its text itself, unhighlighted (kubeloop's own bound).
    let large = text.len() >= LARGE;
    let lines = Rc::new(if large {
        Vec::new()
    } else {
        let shown: Vec<&str> = (window.first..window.first + window.count).map(line).collect();
        highlight_lines(&shown)
    });
    // The text the page itself last put here (the default, a lesson's, an example's): a text that differs from it
    // is the person's work, and when the page replaces it, it stays recoverable.
    let placed = use_mut_ref(|| examples::WEB.to_string());
    let replaced = use_state(|| None::<Rc<str>>);
    let keep_edits = {
        let (ta, text, placed, replaced) = (ta_ref.clone(), text.clone(), placed.clone(), replaced.clone());
        move |new: &str| keep_edits(&ta, &text, &placed, &replaced, new)
    };
    {
        let text = text.clone();
        let load = props.load.clone();
        let keep_edits = keep_edits.clone();
        let put = put.clone();
        use_effect_with(props.load.seq, move |seq| {
            if *seq > 0 {
                keep_edits(&load.text);
                text.set(load.text.clone());
                put.set(*put + 1);
            }
        });
    }
    {
        // The page puts text in the textarea (not typing): the default, a load, an example, a restore.
        let (ta, text) = (ta_ref.clone(), text.clone());
        use_effect_with(*put, move |_| {
            if let Some(t) = ta.cast::<HtmlTextAreaElement>() {
                t.set_value(&text);
            }
        });
    }

    {
        let edited = edited.clone();
        let (ta, pre, gutter) = (ta_ref.clone(), pre_ref.clone(), gutter_ref.clone());
        let error_line = props.apply.error_line;
        use_effect_with(props.apply.seq, move |_| {
            edited.set(false);
            if let (Some(line), Some(el)) = (error_line, ta.cast::<HtmlElement>()) {
                let y = (line as i32 - 4).max(0) * LINE_HEIGHT;
                let visible = el.client_height();
                if y < el.scroll_top() || y + 4 * LINE_HEIGHT > el.scroll_top() + visible {
                    el.set_scroll_top(y);
                }
            }
            sync_scroll(&ta, &pre, &gutter);
        });
    }
    {
        // After every render (the text may have grown, the panel may have resized), keep the layers aligned and
        // the drawn window where the textarea is.
        // Not for a large text: reading the textarea's geometry makes the browser lay all of it out at once (a
        // second for 4 MiB), which it otherwise does lazily; its scroll events keep the gutter aligned.
        let (ta, pre, gutter) = (ta_ref.clone(), pre_ref.clone(), gutter_ref.clone());
        let view = view.clone();
        use_effect(move || {
            if large {
                return;
            }
            if let Some(t) = ta.cast::<HtmlElement>() {
                view.set((t.scroll_top(), t.client_height()));
            }
            sync_scroll(&ta, &pre, &gutter)
        });
    }

    let current_text = {
        let ta = ta_ref.clone();
        let text = text.clone();
        move || ta.cast::<HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_else(|| text.to_string())
    };
    let oninput = {
        let text = text.clone();
        let edited = edited.clone();
        let pause = pause.clone();
        Callback::from(move |e: InputEvent| {
            let ta = e.target_unchecked_into::<HtmlTextAreaElement>();
            edited.set(true);
            if (ta.text_length() as usize) < LARGE {
                text.set(ta.value().into());
                return;
            }
            // A large text: shown unhighlighted at once (the highlighted copy is stale until the pause), and the
            // gutter catches up once typing pauses.
            if let Some(code) = ta.parent_element() {
                code.set_class_name("code plain");
            }
            let Some(w) = web_sys::window() else { return };
            if let Some((id, _)) = pause.borrow_mut().take() {
                w.clear_timeout_with_handle(id);
            }
            let text = text.clone();
            let later = Closure::<dyn FnMut()>::new(move || text.set(ta.value().into()));
            if let Ok(id) =
                w.set_timeout_with_callback_and_timeout_and_arguments_0(later.as_ref().unchecked_ref(), PAUSE_MS)
            {
                *pause.borrow_mut() = Some((id, later));
            }
        })
    };
    let onscroll = {
        let (ta, pre, gutter) = (ta_ref.clone(), pre_ref.clone(), gutter_ref.clone());
        let view = view.clone();
        Callback::from(move |_: Event| {
            if let Some(t) = ta.cast::<HtmlElement>() {
                view.set((t.scroll_top(), t.client_height()));
            }
            sync_scroll(&ta, &pre, &gutter)
        })
    };
    let onkeydown = {
        let on_cmd = props.on_cmd.clone();
        let current = current_text.clone();
        let text = text.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                e.prevent_default();
                let t = current();
                text.set(t.as_str().into());
                on_cmd.emit(Cmd::apply(t));
            }
        })
    };
    let onapply = {
        let on_cmd = props.on_cmd.clone();
        let text = text.clone();
        Callback::from(move |_: MouseEvent| {
            let t = current_text();
            text.set(t.as_str().into());
            on_cmd.emit(Cmd::apply(t));
        })
    };
    let onexample = {
        let (text, put) = (text.clone(), put.clone());
        let edited = edited.clone();
        Callback::from(move |e: Event| {
            let select = e.target_unchecked_into::<web_sys::HtmlSelectElement>();
            if let Some(ex) = examples::find(&select.value()) {
                keep_edits(ex.yaml);
                text.set(ex.yaml.into());
                put.set(*put + 1);
                edited.set(true);
            }
            select.set_value("");
        })
    };

    let recover = replaced.as_ref().map(|old| {
        let restore = {
            let (old, text, replaced, edited) = (old.clone(), text.clone(), replaced.clone(), edited.clone());
            let put = put.clone();
            Callback::from(move |_: MouseEvent| {
                text.set(old.clone());
                put.set(*put + 1);
                edited.set(true);
                replaced.set(None);
            })
        };
        let dismiss = {
            let replaced = replaced.clone();
            Callback::from(move |_: MouseEvent| replaced.set(None))
        };
        html! {
            <div class="editor-replaced" data-testid="editor-replaced" role="status">
                <span>{ format!("Your edited text ({} lines) was replaced.", old.lines().count()) }</span>
                <button class="btn small" data-testid="editor-restore" onclick={restore}
                    title="Put your text back in the editor (nothing is applied)">{ "Restore it" }</button>
                <button class="icon" aria-label="Forget the replaced text" onclick={dismiss}>{ "✕" }</button>
            </div>
        }
    });
    let apply = &props.apply;
    let error_line = if apply.ok || *edited { None } else { apply.error_line };
    let result_class = match (apply.seq, apply.ok) {
        (0, _) => "idle",
        (_, true) => "ok",
        (_, false) => "err",
    };
    html! {
        <section class="panel editor-panel" aria-label="Desired state">
            <div class="panel-head">
                <h2>{ "Desired state" }</h2>
                <select class="examples" data-testid="examples" aria-label="Examples" onchange={onexample} value="">
                    <option value="" selected=true>{ "Examples…" }</option>
                    { for EXAMPLES.iter().map(|ex| html! {
                        <option key={ex.id} value={ex.id}>{ ex.title }</option>
                    }) }
                </select>
            </div>
            { for recover }
            <div class="editor">
                <div class="gutter" ref={gutter_ref} aria-hidden="true">
                    <GutterLines {window} {error_line} />
                    <div class="gl pad"></div>
                </div>
                <div class={classes!("code", large.then_some("plain"))}>
                    <pre class="hl" ref={pre_ref} aria-hidden="true">
                        <Highlighted lines={lines.clone()} {window} {error_line} />
                        <div class="hl-line pad">{ " " }</div>
                    </pre>
                    <textarea
                        ref={ta_ref}
                        data-testid="yaml-editor"
                        class="input"
                        aria-label="Manifests (YAML); Ctrl+Enter applies"
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        {oninput}
                        {onkeydown}
                        {onscroll}
                    />
                </div>
            </div>
            <div class="editor-foot">
                <span class="hint">{ "kubectl apply -f - · Ctrl+Enter (⌘+Enter)" }</span>
                if let Some(p) = apply.applying {
                    <progress class="apply-progress" max={p.of.to_string()} value={p.done.to_string()}
                        aria-label="Applying the manifests (the clock is held)"></progress>
                    <button data-testid="apply-cancel" class="btn" onclick={props.on_cmd.reform(|_: MouseEvent| Cmd::CancelApply)}
                        disabled={!p.cancellable}
                        title={if p.cancellable { "Stop: nothing of this apply is applied" } else { "Read: it is being written, as one apply" }}>
                        { "Cancel" }
                    </button>
                }
                <button data-testid="apply" class="btn primary" onclick={onapply} title="kubectl apply (Ctrl+Enter)"
                    disabled={apply.applying.is_some()}>
                    { "Apply" }
                </button>
            </div>
            <pre class={classes!("apply-result", result_class)} data-testid="apply-result" aria-live="polite">
                { apply.text.trim_end().to_string() }
            </pre>
        </section>
    }
}
