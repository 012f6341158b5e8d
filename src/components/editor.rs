//! Desired state: a YAML editor (a transparent textarea over a highlighted copy, scrolled in sync, with line
//! numbers), the examples menu, Apply (button or Ctrl/Cmd+Enter) and its outcome.

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::examples::{self, EXAMPLES};
use crate::highlight::{highlight, Line};
use crate::liverun::Cmd;
use crate::view::{ApplyOutcome, EditorLoad};

/// Line height of the editor in pixels (static/style.css: --editor-lh).
const LINE_HEIGHT: i32 = 18;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub apply: Rc<ApplyOutcome>,
    /// Text to show (a lesson's manifests): a new `seq` replaces the editor's text.
    pub load: Rc<EditorLoad>,
    pub on_cmd: Callback<Cmd>,
}

#[derive(Properties)]
struct CodeProps {
    lines: Rc<Vec<Line>>,
    error_line: Option<usize>,
}

impl PartialEq for CodeProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.lines, &o.lines) && self.error_line == o.error_line
    }
}

/// The highlighted copy behind the textarea.
#[component]
fn Highlighted(props: &CodeProps) -> Html {
    html! {
        <>
            { for props.lines.iter().enumerate().map(|(i, l)| {
                let err = props.error_line == Some(i + 1);
                html! {
                    <div class={classes!("hl-line", err.then_some("err"))}>
                        { for l.iter().map(|(t, s)| html! { <span class={t.class()}>{ s.clone() }</span> }) }
                        { if l.is_empty() { " " } else { "" } }
                    </div>
                }
            }) }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct GutterProps {
    count: usize,
    error_line: Option<usize>,
}

#[component]
fn GutterLines(props: &GutterProps) -> Html {
    html! {
        <>
            { for (1..=props.count).map(|n| {
                let err = props.error_line == Some(n);
                html! {
                    <div class={classes!("gl", err.then_some("err"))} title={err.then(|| "error on this line".to_string())}>
                        { if err { format!("▶{n}") } else { n.to_string() } }
                    </div>
                }
            }) }
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

/// The page is about to put `new` in the editor: the person's edits (a text other than the one the page last put
/// there) are kept in `replaced`, to restore.
#[inline(never)]
fn keep_edits(
    ta: &NodeRef,
    text: &UseStateHandle<String>,
    placed: &std::cell::RefCell<String>,
    replaced: &UseStateHandle<Option<Rc<str>>>,
    new: &str,
) {
    let current = ta.cast::<HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_else(|| (**text).clone());
    if current != *placed.borrow() && current != new {
        replaced.set(Some(current.into()));
    }
    *placed.borrow_mut() = new.to_string();
}

#[component]
pub fn Editor(props: &EditorProps) -> Html {
    let text = use_state(|| examples::WEB.to_string());
    // Whether the text changed since the last apply (then the error marker no longer points at the right line).
    let edited = use_state(|| false);
    let ta_ref = use_node_ref();
    let pre_ref = use_node_ref();
    let gutter_ref = use_node_ref();
    let lines = use_memo((*text).clone(), |t| highlight(t));
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
        use_effect_with(props.load.seq, move |seq| {
            if *seq > 0 {
                keep_edits(&load.text);
                text.set(load.text.to_string());
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
        // After every render (the text may have grown), keep the layers aligned.
        let (ta, pre, gutter) = (ta_ref.clone(), pre_ref.clone(), gutter_ref.clone());
        use_effect(move || sync_scroll(&ta, &pre, &gutter));
    }

    let current_text = {
        let ta = ta_ref.clone();
        let text = text.clone();
        move || ta.cast::<HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_else(|| (*text).clone())
    };
    let oninput = {
        let text = text.clone();
        let edited = edited.clone();
        Callback::from(move |e: InputEvent| {
            text.set(e.target_unchecked_into::<HtmlTextAreaElement>().value());
            edited.set(true);
        })
    };
    let onscroll = {
        let (ta, pre, gutter) = (ta_ref.clone(), pre_ref.clone(), gutter_ref.clone());
        Callback::from(move |_: Event| sync_scroll(&ta, &pre, &gutter))
    };
    let onkeydown = {
        let on_cmd = props.on_cmd.clone();
        let current = current_text.clone();
        let text = text.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                e.prevent_default();
                let t = current();
                text.set(t.clone());
                on_cmd.emit(Cmd::apply(t));
            }
        })
    };
    let onapply = {
        let on_cmd = props.on_cmd.clone();
        let text = text.clone();
        Callback::from(move |_: MouseEvent| {
            let t = current_text();
            text.set(t.clone());
            on_cmd.emit(Cmd::apply(t));
        })
    };
    let onexample = {
        let text = text.clone();
        let edited = edited.clone();
        Callback::from(move |e: Event| {
            let select = e.target_unchecked_into::<web_sys::HtmlSelectElement>();
            if let Some(ex) = examples::find(&select.value()) {
                keep_edits(ex.yaml);
                text.set(ex.yaml.to_string());
                edited.set(true);
            }
            select.set_value("");
        })
    };

    let recover = replaced.as_ref().map(|old| {
        let restore = {
            let (old, text, replaced, edited) = (old.clone(), text.clone(), replaced.clone(), edited.clone());
            Callback::from(move |_: MouseEvent| {
                text.set(old.to_string());
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
                    <GutterLines count={lines.len()} {error_line} />
                    <div class="gl pad"></div>
                </div>
                <div class="code">
                    <pre class="hl" ref={pre_ref} aria-hidden="true">
                        <Highlighted lines={lines.clone()} {error_line} />
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
                        value={(*text).clone()}
                        {oninput}
                        {onkeydown}
                        {onscroll}
                    />
                </div>
            </div>
            <div class="editor-foot">
                <span class="hint">{ "kubectl apply -f - · Ctrl+Enter (⌘+Enter)" }</span>
                <button data-testid="apply" class="btn primary" onclick={onapply} title="kubectl apply (Ctrl+Enter)">
                    { "Apply" }
                </button>
            </div>
            <pre class={classes!("apply-result", result_class)} data-testid="apply-result" aria-live="polite">
                { apply.text.trim_end().to_string() }
            </pre>
        </section>
    }
}
