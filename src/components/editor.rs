//! Desired state: a YAML editor (a transparent textarea over a highlighted copy, scrolled in sync, with line
//! numbers), the examples menu, Apply (button or Ctrl/Cmd+Enter) and its outcome.

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::cmd::Cmd;
use crate::examples::{self, EXAMPLES};
use crate::highlight::{highlight_lines, Line};
use crate::textwindow::{self, TextWindow};
use crate::view::{ApplyOutcome, EditorLoad};

/// Line height of the editor in pixels (static/style.css: --editor-lh).
const LINE_HEIGHT: i32 = 18;
/// From this many characters the editor shows the text unhighlighted and counts its lines once typing pauses
/// (kubeloop's own bound).
const PLAIN: usize = 256 * 1024;
/// The pause, in milliseconds.
const PAUSE_MS: i32 = 300;
/// From this many characters the textarea holds a window of the text's lines ([`textwindow`]; kubeloop's own bound:
/// a browser's textarea takes about 100 ms a keystroke at 1 MiB of short lines, 200 ms at 3 MiB); below half of it,
/// the whole text again.
const WINDOWED: usize = 1024 * 1024;

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

/// The line numbers of the window (a plain function: a component costs about 2 KiB of yew's code, and these are a
/// few dozen numbers).
fn gutter_lines(w: Window, error_line: Option<usize>) -> Html {
    html! {
        <>
            { Window::spacer(w.first) }
            { for (w.first + 1..=w.first + w.count).map(|n| {
                let err = error_line == Some(n);
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

thread_local! {
    /// The text outside the textarea's window while the text is large (kubeloop's own bound, [`textwindow`]).
    static OUTSIDE: std::cell::RefCell<Option<TextWindow>> = const { std::cell::RefCell::new(None) };
}

fn windowed<R>(f: impl FnOnce(&mut Option<TextWindow>) -> R) -> R {
    OUTSIDE.with(|w| f(&mut w.borrow_mut()))
}

/// The editor's textarea in the page (the component holds its text; the console's `-f -`, the kept session and the
/// crash overlay read it from here).
fn textarea() -> Option<HtmlTextAreaElement> {
    web_sys::window()?.document()?.query_selector("[data-testid=yaml-editor]").ok()??.dyn_into().ok()
}

/// What the editor holds now (a large text: its window and the lines outside it).
pub fn current_text() -> Option<String> {
    let window = textarea()?.value();
    Some(windowed(|w| w.as_ref().map(|w| w.whole(&window))).unwrap_or(window))
}

/// The length of the editor's text in UTF-16 units, without copying it (a 4 MiB text costs to copy).
pub fn current_len() -> Option<usize> {
    let window = textarea()?.text_length() as usize;
    Some(windowed(|w| w.as_ref().map(|w| w.len16(window))).unwrap_or(window))
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
    text: &UseStateHandle<Rc<str>>,
    placed: &std::cell::RefCell<String>,
    replaced: &UseStateHandle<Option<Rc<str>>>,
    new: &str,
) {
    let current = current_text().unwrap_or_else(|| text.to_string());
    if current != *placed.borrow() && current != new {
        replaced.set(Some(current.into()));
    }
    *placed.borrow_mut() = new.to_string();
}

/// A large text's window as the page draws it: lines before it, in it, after it; whether all the text is selected.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Shown {
    first: usize,
    lines: usize,
    after: usize,
    all: bool,
}

/// The elements a large text's window is drawn in: the scrolling code block, its spacers, the textarea.
struct Parts {
    code: NodeRef,
    top: NodeRef,
    bottom: NodeRef,
    ta: NodeRef,
    gutter: NodeRef,
}

impl Parts {
    /// The code block's first and last visible lines of the whole text.
    fn visible(&self) -> Option<(HtmlElement, usize, usize)> {
        let code = self.code.cast::<HtmlElement>()?;
        let top = (code.scroll_top().max(0) / LINE_HEIGHT) as usize;
        let rows = (code.client_height().max(0) / LINE_HEIGHT) as usize;
        Some((code, top, top + rows))
    }

    /// Puts `window` in the textarea (the text outside it is `tw`, now the editor's), sized to it, between spacers
    /// as tall as the lines outside it, with the selection at `sel` (lines and columns of the whole text; `None`:
    /// the window's start). What it shows.
    fn show(&self, tw: TextWindow, window: &str, sel: Option<[(usize, usize); 2]>) -> Option<Shown> {
        let ta = self.ta.cast::<HtmlTextAreaElement>()?;
        let lines = textwindow::count_lines(window);
        let shown = Shown { first: tw.first_line(), lines, after: tw.lines_after(), all: false };
        if let Some(code) = self.code.cast::<web_sys::Element>() {
            code.set_class_name("code plain windowed");
        }
        for (r, n) in [(&self.top, shown.first), (&self.bottom, shown.after)] {
            if let Some(svg) = r.cast::<web_sys::Element>() {
                let _ = svg.set_attribute("height", &(n as u64 * LINE_HEIGHT as u64).to_string());
            }
        }
        ta.set_value(window);
        size_to(&ta, window, lines);
        let at = |(line, col): (usize, usize)| match line.checked_sub(shown.first).filter(|&l| l < lines) {
            Some(l) => textwindow::pos16(window, l, col) as u32,
            None if line < shown.first => 0,
            None => window.encode_utf16().count() as u32,
        };
        let [a, b] = sel.unwrap_or_default();
        let _ = ta.set_selection_range(at(a), at(b));
        windowed(|w| *w = Some(tw));
        Some(shown)
    }

    /// The selection in the textarea as lines and columns of the whole text.
    fn selection(&self) -> Option<[(usize, usize); 2]> {
        let ta = self.ta.cast::<HtmlTextAreaElement>()?;
        let window = ta.value();
        let first = windowed(|w| w.as_ref().map(TextWindow::first_line))?;
        let at = |pos: Option<u32>| {
            let (l, c) = textwindow::line_col16(&window, pos.unwrap_or(0) as usize);
            (first + l, c)
        };
        Some([at(ta.selection_start().ok()?), at(ta.selection_end().ok()?)])
    }

    /// The window moved to be centred on line `center` of the whole text, the selection kept where it can be.
    fn recenter(&self, center: usize) -> Option<Shown> {
        let ta = self.ta.cast::<HtmlTextAreaElement>()?;
        let sel = self.selection();
        let mut tw = windowed(|w| w.clone())?;
        let window = tw.recenter(&ta.value(), center);
        self.show(tw, &window, sel)
    }

    /// A text put in the editor: a large one windowed at its first line, a small one whole.
    fn place(&self, text: &str) -> Option<Shown> {
        if text.len() < WINDOWED {
            self.unwindow(text);
            return None;
        }
        self.window_at(text, (0, 0))
    }

    /// `whole` windowed around the caret at (line, column), the code block scrolled to show it.
    fn window_at(&self, whole: &str, caret: (usize, usize)) -> Option<Shown> {
        let (tw, window) = TextWindow::around(whole, caret.0);
        let shown = self.show(tw, &window, Some([caret, caret]));
        if let Some((code, _, _)) = self.visible() {
            code.set_scroll_top(((caret.0 as i32) - 10).max(0) * LINE_HEIGHT);
        }
        shown
    }

    /// The textarea holds `text` whole again.
    fn unwindow(&self, text: &str) {
        windowed(|w| *w = None);
        let Some(ta) = self.ta.cast::<HtmlElement>() else { return };
        if let Some(code) = self.code.cast::<web_sys::Element>() {
            code.set_class_name(if text.len() < PLAIN { "code" } else { "code plain" });
        }
        let _ = ta.style().remove_property("height");
        let _ = ta.style().remove_property("width");
        if let Ok(t) = ta.dyn_into::<HtmlTextAreaElement>() {
            t.set_value(text);
        }
    }

    /// Typing, or the code block scrolled: the window moves when what is shown or the caret nears one of its edges.
    fn follow(&self, shown: Shown, caret: bool) -> Option<Shown> {
        let tw = windowed(|w| w.clone())?;
        let (code, top, bottom) = self.visible()?;
        if let Some(g) = self.gutter.cast::<HtmlElement>() {
            g.set_scroll_top(code.scroll_top());
        }
        if caret {
            let [(a, _), (b, _)] = self.selection()?;
            return tw.needs_move(shown.lines, a.min(b), a.max(b)).then(|| self.recenter(a.max(b))).flatten();
        }
        tw.needs_move(shown.lines, top, bottom).then(|| self.recenter((top + bottom) / 2)).flatten()
    }
}

/// A paste of at least a window's bytes that makes the text large: put in the text here, windowed around its end
/// (the browser would lay the whole text out in the textarea first). `None`: the browser pastes it.
fn paste(parts: &Parts, data: &web_sys::DataTransfer) -> Option<Shown> {
    let ta = parts.ta.cast::<HtmlTextAreaElement>()?;
    let pasted = data.get_data("text/plain").ok()?;
    if pasted.len() < textwindow::WINDOW_BYTES || current_len()? + pasted.len() < WINDOWED {
        return None;
    }
    let window = ta.value();
    let before = windowed(|w| w.as_ref().map_or(0, TextWindow::before_bytes));
    let (a, b) = (ta.selection_start().ok()??, ta.selection_end().ok()??);
    let [a, b] = [a.min(b), a.max(b)].map(|p| before + textwindow::byte_of16(&window, p as usize));
    let mut whole = current_text()?;
    whole.replace_range(a..b, &pasted);
    parts.window_at(&whole, textwindow::line_col_at(&whole, a + pasted.len()))
}

/// The textarea as large as its window's text, so that it never scrolls itself: the code block around it does.
fn size_to(ta: &HtmlTextAreaElement, window: &str, lines: usize) {
    let widest = window.split('\n').map(|l| l.chars().count()).max().unwrap_or(0);
    let style = ta.style();
    let _ = style.set_property("height", &format!("{}px", lines as u64 * LINE_HEIGHT as u64));
    let _ = style.set_property("width", &format!("calc({}ch + 24px)", widest + 1));
}

#[component]
pub fn Editor(props: &EditorProps) -> Html {
    // The text as the highlighted copy and the gutter draw it. The textarea holds the text itself and is not bound
    // to this state (setting a large value on every keystroke costs a layout of it all): the page puts text in by
    // bumping `put`, and typing updates this state. A large text is windowed instead ([`textwindow`]): the
    // textarea holds a window of its lines, `shown` says which, and this state is not kept up to date.
    let text = use_state(|| Rc::<str>::from(examples::WEB));
    let put = use_state(|| 0u64);
    let pause = use_mut_ref(|| None::<(i32, Closure<dyn FnMut()>)>);
    let shown = use_state_eq(|| None::<Shown>);
    // Whether the text changed since the last apply (then the error marker no longer points at the right line).
    let edited = use_state_eq(|| false);
    // One hook for the five elements (each closure below holds one Rc of them).
    let parts = use_memo((), |_| Parts {
        code: NodeRef::default(),
        top: NodeRef::default(),
        bottom: NodeRef::default(),
        ta: NodeRef::default(),
        gutter: NodeRef::default(),
    });
    let (ta_ref, gutter_ref) = (parts.ta.clone(), parts.gutter.clone());
    let pre_ref = use_node_ref();
    // The window of lines drawn, from the scroll position and height of what scrolls.
    let view = use_state_eq(|| (0i32, 600i32));
    // Where each line starts, found once per text (not once per render).
    let starts = use_memo(SameText((*text).clone()), |t| if shown.is_some() { Vec::new() } else { line_starts(&t.0) });
    let total = match *shown {
        Some(s) => s.first + s.lines + s.after,
        None => starts.len().max(1),
    };
    let window = Window::of(view.0, view.1, total);
    let plain = shown.is_some() || text.len() >= PLAIN;
    let lines = Rc::new(if plain {
        Vec::new()
    } else {
        let line = |i: usize| {
            let end = starts.get(i + 1).map_or(text.len(), |e| e - 1);
            text.get(starts[i]..end).unwrap_or_default()
        };
        let drawn: Vec<&str> = (window.first..window.first + window.count).map(line).collect();
        highlight_lines(&drawn)
    });
    // The text the page itself last put here (the default, a lesson's, an example's): a text that differs from it
    // is the person's work, and when the page replaces it, it stays recoverable.
    let placed = use_mut_ref(|| examples::WEB.to_string());
    let replaced = use_state(|| None::<Rc<str>>);
    let keep_edits = {
        let (text, placed, replaced) = (text.clone(), placed.clone(), replaced.clone());
        move |new: &str| keep_edits(&text, &placed, &replaced, new)
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
        let (parts, text, shown) = (parts.clone(), text.clone(), shown.clone());
        use_effect_with(*put, move |_| shown.set(parts.place(&text)));
    }

    {
        let edited = edited.clone();
        let (parts, pre, shown) = (parts.clone(), pre_ref.clone(), shown.clone());
        let error_line = props.apply.error_line;
        use_effect_with(props.apply.seq, move |_| {
            edited.set(false);
            let Some(line) = error_line else { return };
            if let Some(s) = *shown {
                // A large text: the window moves to the line, and the code block scrolls to it.
                let l = line.saturating_sub(1);
                if !(s.first..s.first + s.lines).contains(&l) {
                    shown.set(parts.recenter(l));
                }
                if let Some((code, top, bottom)) = parts.visible() {
                    if !(top..bottom.saturating_sub(4)).contains(&l) {
                        code.set_scroll_top((l as i32 - 4).max(0) * LINE_HEIGHT);
                    }
                }
            } else if let Some(el) = parts.ta.cast::<HtmlElement>() {
                let y = (line as i32 - 4).max(0) * LINE_HEIGHT;
                let visible = el.client_height();
                if y < el.scroll_top() || y + 4 * LINE_HEIGHT > el.scroll_top() + visible {
                    el.set_scroll_top(y);
                }
                sync_scroll(&parts.ta, &pre, &parts.gutter);
            }
        });
    }
    {
        // After every render (the text may have grown, the panel may have resized), keep the layers aligned and
        // the drawn window where the textarea is (a large text: where the code block is).
        let (ta, pre, gutter) = (ta_ref.clone(), pre_ref.clone(), gutter_ref.clone());
        let (view, code, windowed) = (view.clone(), parts.code.clone(), shown.is_some());
        use_effect(move || {
            let scroller = if windowed { code.cast::<HtmlElement>() } else { ta.cast::<HtmlElement>() };
            if let Some(t) = scroller {
                view.set((t.scroll_top(), t.client_height()));
            }
            if !windowed {
                sync_scroll(&ta, &pre, &gutter)
            }
        });
    }

    let oninput = {
        let (text, edited, parts, shown) = (text.clone(), edited.clone(), parts.clone(), shown.clone());
        let pause = pause.clone();
        Callback::from(move |e: InputEvent| {
            let ta = e.target_unchecked_into::<HtmlTextAreaElement>();
            edited.set(true);
            let len = ta.text_length() as usize;
            let Some(s) = *shown else {
                if len < PLAIN {
                    if let Some(code) = ta.parent_element() {
                        code.set_class_name("code");
                    }
                    text.set(ta.value().into());
                } else if len < WINDOWED {
                    // Unhighlighted at once (the highlighted copy is stale until the pause), the gutter catches up
                    // once typing pauses.
                    if let Some(code) = ta.parent_element() {
                        code.set_class_name("code plain");
                    }
                    let Some(w) = web_sys::window() else { return };
                    if let Some((id, _)) = pause.borrow_mut().take() {
                        w.clear_timeout_with_handle(id);
                    }
                    let text = text.clone();
                    let later = Closure::<dyn FnMut()>::new(move || text.set(ta.value().into()));
                    if let Ok(id) = w
                        .set_timeout_with_callback_and_timeout_and_arguments_0(later.as_ref().unchecked_ref(), PAUSE_MS)
                    {
                        *pause.borrow_mut() = Some((id, later));
                    }
                } else {
                    // Pasted or typed past the bound: windowed at once, before the browser lays the text out.
                    let whole = ta.value();
                    let caret = textwindow::line_col16(&whole, ta.selection_end().ok().flatten().unwrap_or(0) as usize);
                    shown.set(parts.window_at(&whole, caret));
                }
                return;
            };
            let window = ta.value();
            let whole_len = windowed(|w| w.as_ref().map(|w| w.len16(len))).unwrap_or(len);
            if whole_len < WINDOWED / 2 {
                // Small again: the textarea holds it all.
                let sel = parts.selection();
                let whole = current_text().unwrap_or_default();
                parts.unwindow(&whole);
                if let Some([(l, c), _]) = sel {
                    let p = textwindow::pos16(&whole, l, c) as u32;
                    let _ = ta.set_selection_range(p, p);
                }
                text.set(whole.into());
                shown.set(None);
                return;
            }
            let lines = textwindow::count_lines(&window);
            if window.len() > 2 * textwindow::WINDOW_BYTES || lines > 2 * textwindow::WINDOW_LINES {
                let caret = parts.selection().map_or(s.first, |[_, (l, _)]| l);
                shown.set(parts.recenter(caret));
            } else {
                size_to(&ta, &window, lines);
                shown.set(Some(Shown { lines, all: false, ..s }));
            }
        })
    };
    let on_clipboard = {
        let (parts, shown) = (parts.clone(), shown.clone());
        let (text, edited) = (text.clone(), edited.clone());
        Callback::from(move |e: Event| {
            let Ok(e) = e.dyn_into::<web_sys::ClipboardEvent>() else { return };
            let Some(data) = e.clipboard_data() else { return };
            if e.type_() == "paste" {
                if let Some(s) = paste(&parts, &data) {
                    e.prevent_default();
                    shown.set(Some(s));
                    edited.set(true);
                }
                return;
            }
            let Some(s) = *shown else { return };
            if !s.all {
                return;
            }
            let Some(whole) = current_text() else { return };
            if data.set_data("text/plain", &whole).is_err() {
                return;
            }
            e.prevent_default();
            if e.type_() == "cut" {
                parts.unwindow("");
                text.set("".into());
                shown.set(None);
                edited.set(true);
            }
        })
    };
    let onscroll = {
        let (ta, pre, gutter) = (ta_ref.clone(), pre_ref.clone(), gutter_ref.clone());
        let view = view.clone();
        let windowed = shown.is_some();
        Callback::from(move |_: Event| {
            if windowed {
                return;
            }
            if let Some(t) = ta.cast::<HtmlElement>() {
                view.set((t.scroll_top(), t.client_height()));
            }
            sync_scroll(&ta, &pre, &gutter)
        })
    };
    let oncodescroll = {
        let (parts, shown, view) = (parts.clone(), shown.clone(), view.clone());
        Callback::from(move |_: Event| {
            let Some(s) = *shown else { return };
            if let Some((code, _, _)) = parts.visible() {
                view.set((code.scroll_top(), code.client_height()));
            }
            if let Some(moved) = parts.follow(s, false) {
                shown.set(Some(moved));
            }
        })
    };
    let onmousedown = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(s) = (*shown).filter(|s| s.all) {
                shown.set(Some(Shown { all: false, ..s }));
            }
        })
    };
    let onkeydown = {
        let on_cmd = props.on_cmd.clone();
        let (text, parts, shown) = (text.clone(), parts.clone(), shown.clone());
        Callback::from(move |e: KeyboardEvent| {
            let key = e.key();
            let ctrl = e.ctrl_key() || e.meta_key();
            if key == "Enter" && ctrl {
                e.prevent_default();
                let t = current_text().unwrap_or_default();
                if shown.is_none() {
                    text.set(t.as_str().into());
                }
                on_cmd.emit(Cmd::apply(t));
                return;
            }
            let Some(s) = *shown else { return };
            match key.as_str() {
                "a" | "A" if ctrl => {
                    // Every line, not only the window's: the window shows selected, and typing, Copy or Cut acts on
                    // the whole text.
                    e.prevent_default();
                    if let Some(ta) = parts.ta.cast::<HtmlTextAreaElement>() {
                        ta.select();
                    }
                    shown.set(Some(Shown { all: true, ..s }));
                }
                "Home" | "End" if ctrl && !e.shift_key() => {
                    e.prevent_default();
                    let last = key == "End";
                    let line = if last { s.first + s.lines + s.after - 1 } else { 0 };
                    let moved = parts.recenter(line).map(|m| Shown { all: false, ..m });
                    if let (Some(ta), Some(code)) =
                        (parts.ta.cast::<HtmlTextAreaElement>(), parts.code.cast::<HtmlElement>())
                    {
                        let p = if last { ta.text_length() } else { 0 };
                        let _ = ta.set_selection_range(p, p);
                        code.set_scroll_top(if last { code.scroll_height() } else { 0 });
                    }
                    shown.set(moved);
                }
                "Control" | "Meta" | "Shift" | "Alt" => {}
                "c" | "C" | "x" | "X" if ctrl => {}
                _ if s.all => {
                    let edits = matches!(key.as_str(), "Backspace" | "Delete" | "Enter")
                        || (key.chars().count() == 1 && !ctrl)
                        || (ctrl && (key == "v" || key == "V"));
                    if edits {
                        // Ctrl+A, then typing, deleting or pasting: it replaces every line, not only the window's.
                        windowed(|w| *w = Some(TextWindow::default()));
                        shown.set(Some(Shown { first: 0, after: 0, all: false, ..s }));
                    } else {
                        shown.set(Some(Shown { all: false, ..s }));
                    }
                }
                _ => {
                    // The caret may be about to leave the window: it moves first, the key acts on it after.
                    if let Some(m) = parts.follow(s, true) {
                        shown.set(Some(m));
                    }
                }
            }
        })
    };
    let onapply = {
        let on_cmd = props.on_cmd.clone();
        let (text, windowed) = (text.clone(), shown.is_some());
        Callback::from(move |_: MouseEvent| {
            let t = current_text().unwrap_or_default();
            if !windowed {
                text.set(t.as_str().into());
            }
            on_cmd.emit(Cmd::apply(t));
        })
    };
    let onexample = {
        let (text, put) = (text.clone(), put.clone());
        let (edited, on_cmd) = (edited.clone(), props.on_cmd.clone());
        Callback::from(move |e: Event| {
            let select = e.target_unchecked_into::<web_sys::HtmlSelectElement>();
            match examples::find(&select.value()).map(|ex| (ex, ex.text())) {
                Some((_, Some(yaml))) => {
                    keep_edits(&yaml);
                    text.set(yaml);
                    put.set(*put + 1);
                    edited.set(true);
                }
                // Fetched once the page runs: a choice in its first moments may come before it.
                Some((ex, None)) => on_cmd.emit(Cmd::Notice(format!(
                    "The example \"{}\" has not arrived from the site yet: choose it again in a moment.",
                    ex.title
                ))),
                None => {}
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
    let (above, below) = shown.map_or((0, 0), |s| (s.first, s.after));
    let hint = match *shown {
        None => "kubectl apply -f - · Ctrl+Enter (⌘+Enter)".to_string(),
        Some(s) if s.all => format!("All {total} lines selected: typing, Cut or Copy acts on all of them"),
        Some(s) => {
            format!("Large text: lines {}–{} of {total} here, more as you scroll", s.first + 1, s.first + s.lines)
        }
    };
    let hint_title = shown.map(|_| {
        "Above 1 MiB the editor holds a window of about a thousand lines at a time (kubeloop's own bound: a browser's \
         textarea slows to 100-200 ms a keystroke); Ctrl+A selects every line; Apply applies the whole text"
    });
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
                    { gutter_lines(window, error_line) }
                    <div class="gl pad"></div>
                </div>
                <div class={classes!("code", plain.then_some("plain"), shown.is_some().then_some("windowed"))} ref={parts.code.clone()}
                    onscroll={oncodescroll}>
                    <svg class="edge" ref={parts.top.clone()} width="1" height={(above as u64 * LINE_HEIGHT as u64).to_string()}
                        aria-hidden="true"></svg>
                    <pre class="hl" ref={pre_ref} aria-hidden="true">
                        <Highlighted lines={lines.clone()} {window} {error_line} />
                        <div class="hl-line pad">{ " " }</div>
                    </pre>
                    <textarea
                        ref={ta_ref}
                        data-testid="yaml-editor"
                        data-lines={total.to_string()}
                        data-window={shown.map(|s| format!("{}-{}", s.first + 1, s.first + s.lines))}
                        class="input"
                        aria-label="Manifests (YAML); Ctrl+Enter applies"
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        {oninput}
                        {onkeydown}
                        {onscroll}
                        {onmousedown}
                        oncopy={on_clipboard.clone()}
                        oncut={on_clipboard.clone()}
                        onpaste={on_clipboard}
                    />
                    <svg class="edge" ref={parts.bottom.clone()} width="1" height={(below as u64 * LINE_HEIGHT as u64).to_string()}
                        aria-hidden="true"></svg>
                </div>
            </div>
            <div class="editor-foot">
                <span class="hint" data-testid="editor-hint" title={hint_title}>{ hint }</span>
                if let Some(p) = apply.applying {
                    <progress class="apply-progress" max={p.of.to_string()} value={p.done.to_string()}
                        aria-label="Applying the manifests (the clock is held)"></progress>
                    <button data-testid="apply-cancel" class="btn" onclick={props.on_cmd.reform(|_: MouseEvent| Cmd::CancelApply)}
                        disabled={!p.cancellable}
                        title={if p.cancellable { "Stop: nothing of this apply is applied" } else { "Read: it is being written, as one apply" }}>
                        { "Cancel" }
                    </button>
                }
                <button data-testid="apply" class="btn primary" onclick={onapply}
                    disabled={apply.applying.is_some()}>
                    { "Apply" }
                </button>
            </div>
            <div class={classes!("apply-result", result_class)} data-testid="apply-result" data-seq={apply.seq.to_string()} aria-live="polite">
                <strong>{ &apply.summary }</strong>{ &apply.text }
                if !apply.warnings.is_empty() {
                    <details><summary>{ format!("{} warning(s)", apply.warnings.len()) }</summary>
                        { apply.warnings.join("\n") }</details>
                }
            </div>
        </section>
    }
}
