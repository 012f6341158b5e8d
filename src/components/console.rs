//! The kubectl console: a terminal-like panel. Enter runs the line against the page's cluster (through the same
//! `kubectl::run` as the runner), Up/Down walk the history, Tab completes, Ctrl+C stops the newest command that keeps
//! printing (`get -w`, `rollout status`, a `drain` that goes on beside later lines), Ctrl+L or `clear` empties the
//! screen. Only the input's own keys are
//! handled: nothing is listened to on the document, so the YAML editor keeps all of its keys.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement};
use yew::prelude::*;

use crate::cmd::Cmd;
use crate::view::{Chunk, ConsoleEntry, ConsoleView};

#[derive(Properties, PartialEq)]
pub struct ConsoleProps {
    pub view: ConsoleView,
    pub on_cmd: Callback<Cmd>,
    /// Tab: the line completed, and the candidates to list when several remain.
    pub complete: Callback<String, (String, Vec<String>)>,
}

/// Shell-like history: Up from the line being typed keeps it as a draft that Down brings back.
#[derive(Default, Debug)]
pub struct History {
    lines: Vec<String>,
    pos: Option<usize>,
    draft: String,
}

impl History {
    /// Records a line that ran (not blank, not a repeat of the previous one) and goes back to the bottom.
    pub fn push(&mut self, line: &str) {
        self.pos = None;
        self.draft.clear();
        if !line.trim().is_empty() && self.lines.last().map(String::as_str) != Some(line) {
            self.lines.push(line.to_string());
            if self.lines.len() > 500 {
                self.lines.remove(0);
            }
        }
    }

    /// The line Up shows (`current` is what the input holds now).
    pub fn up(&mut self, current: &str) -> Option<String> {
        let i = match self.pos {
            _ if self.lines.is_empty() => return None,
            None => {
                self.draft = current.to_string();
                self.lines.len() - 1
            }
            Some(i) => i.saturating_sub(1),
        };
        self.pos = Some(i);
        self.lines.get(i).cloned()
    }

    /// The line Down shows: a later one, or the draft at the bottom.
    pub fn down(&mut self) -> Option<String> {
        let i = self.pos?;
        if i + 1 < self.lines.len() {
            self.pos = Some(i + 1);
            self.lines.get(i + 1).cloned()
        } else {
            self.pos = None;
            Some(std::mem::take(&mut self.draft))
        }
    }
}

/// Whether the page has a text selection (then a click or Ctrl+C is about copying, not the console).
fn selection_collapsed() -> bool {
    let Some(w) = web_sys::window() else { return true };
    let get = js_sys::Reflect::get(&w, &"getSelection".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let sel = get.and_then(|f| f.call0(&w).ok());
    sel.and_then(|s| js_sys::Reflect::get(&s, &"isCollapsed".into()).ok()).and_then(|v| v.as_bool()).unwrap_or(true)
}

fn set_line(input: &HtmlInputElement, line: &str) {
    input.set_value(line);
    let end = line.encode_utf16().count() as u32;
    let _ = input.set_selection_range(end, end);
}

fn chunks(entry: &ConsoleEntry) -> Html {
    html! {
        <>
            { entry.truncated.then(|| html! { <span class="note">{ "… earlier output dropped\n" }</span> }) }
            { for entry.chunks.iter().map(|c| match c {
                Chunk::Stdout(s) => html! { { s.clone() } },
                Chunk::Stderr(s) => html! { <span class="stderr">{ s.clone() }</span> },
                Chunk::Note(s) => html! { <span class="note">{ s.clone() }</span> },
            }) }
        </>
    }
}

fn echo(entry: &ConsoleEntry) -> Html {
    let failed = entry.code.is_some_and(|c| c != 0);
    html! {
        <div class={classes!("echo", failed.then_some("failed"))}>
            <span class="ps1">{ "$ " }</span>{ entry.line.clone() }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct PastProps {
    entry: Rc<ConsoleEntry>,
}

/// An earlier command in the scrollback (re-rendered only if it changes: while its command still prints, a drain
/// going on beside the lines after it).
#[component]
fn Past(props: &PastProps) -> Html {
    html! {
        <div class="entry">
            { echo(&props.entry) }
            <pre class="out">{ chunks(&props.entry) }</pre>
        </div>
    }
}

#[component]
pub fn Console(props: &ConsoleProps) -> Html {
    let input_ref = use_node_ref();
    let body_ref = use_node_ref();
    // The commands of a restored session come back with Up (restored when the page starts, or once the run it
    // keeps can be read: `liverun/deferral.rs`).
    let history = use_mut_ref(History::default);
    {
        let (history, view) = (history.clone(), props.view.clone());
        use_effect_with(props.view.restored, move |_| {
            let mut h = History::default();
            for e in view.earlier.iter().map(|e| &**e).chain(view.last.as_deref()) {
                h.push(&e.line);
            }
            *history.borrow_mut() = h;
        });
    }
    let candidates = use_state(Vec::<String>::new);
    // Follow the bottom unless the user scrolled up to read.
    let stick = use_mut_ref(|| true);

    {
        let body = body_ref.clone();
        let stick = stick.clone();
        // The earlier entries too: a drain going on beside later lines prints into its own entry.
        let (earlier, last) = (props.view.earlier.clone(), props.view.last.clone());
        let listed = candidates.len();
        use_effect_with((earlier, last, listed), move |_| {
            if *stick.borrow() {
                if let Some(b) = body.cast::<HtmlElement>() {
                    b.set_scroll_top(b.scroll_height());
                }
            }
        });
    }

    let onscroll = {
        let stick = stick.clone();
        Callback::from(move |e: Event| {
            let b = e.target_unchecked_into::<HtmlElement>();
            *stick.borrow_mut() = b.scroll_top() + b.client_height() >= b.scroll_height() - 24;
        })
    };
    let onclick = {
        let input = input_ref.clone();
        Callback::from(move |_: MouseEvent| {
            if selection_collapsed() {
                if let Some(i) = input.cast::<HtmlElement>() {
                    let _ = i.focus();
                }
            }
        })
    };
    let oninput = {
        let candidates = candidates.clone();
        Callback::from(move |_: InputEvent| {
            if !candidates.is_empty() {
                candidates.set(Vec::new());
            }
        })
    };
    let running = props.view.earlier.iter().chain(props.view.last.as_ref()).any(|e| e.code.is_none());
    let onkeydown = {
        let on_cmd = props.on_cmd.clone();
        let complete = props.complete.clone();
        let candidates = candidates.clone();
        let history = history.clone();
        let stick = stick.clone();
        Callback::from(move |e: KeyboardEvent| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            let plain = !e.ctrl_key() && !e.meta_key() && !e.alt_key();
            match e.key().as_str() {
                "Enter" if plain && !e.shift_key() => {
                    e.prevent_default();
                    let line = input.value();
                    input.set_value("");
                    history.borrow_mut().push(&line);
                    candidates.set(Vec::new());
                    *stick.borrow_mut() = true;
                    if line.trim().is_empty() {
                        return;
                    }
                    let stdin = if line.contains("-f") || line.contains("--filename") {
                        crate::components::editor::current_text()
                    } else {
                        None
                    };
                    on_cmd.emit(Cmd::Kubectl { line, stdin });
                }
                "ArrowUp" if plain => {
                    e.prevent_default();
                    let recalled = history.borrow_mut().up(&input.value());
                    if let Some(l) = recalled {
                        set_line(&input, &l);
                    }
                }
                "ArrowDown" if plain => {
                    e.prevent_default();
                    let recalled = history.borrow_mut().down();
                    if let Some(l) = recalled {
                        set_line(&input, &l);
                    }
                }
                // Tab completes while there is something to complete; on an empty line it moves focus as usual,
                // so the keyboard is never trapped (Shift+Tab always moves back).
                "Tab" if plain && !e.shift_key() && !input.value().trim().is_empty() => {
                    e.prevent_default();
                    let value = input.value();
                    let caret = input.selection_start().ok().flatten().map(|c| c as usize);
                    // Completes what is left of the caret; the rest of the line stays after it.
                    let split = caret
                        .and_then(|c| value.char_indices().map(|(i, _)| i).chain([value.len()]).nth(c))
                        .unwrap_or(value.len());
                    let (left, right) = value.split_at(split);
                    let (done, list) = complete.emit(left.to_string());
                    let caret = done.encode_utf16().count() as u32;
                    input.set_value(&format!("{done}{right}"));
                    let _ = input.set_selection_range(caret, caret);
                    *stick.borrow_mut() = true;
                    candidates.set(list);
                }
                "Escape" => candidates.set(Vec::new()),
                "c" | "C" if e.ctrl_key() && !e.meta_key() && !e.alt_key() => {
                    let start = input.selection_start().ok().flatten();
                    let end = input.selection_end().ok().flatten();
                    if start != end || !selection_collapsed() {
                        return; // copying
                    }
                    e.prevent_default();
                    input.set_value("");
                    candidates.set(Vec::new());
                    on_cmd.emit(Cmd::KubectlInterrupt);
                }
                "l" | "L" if e.ctrl_key() && !e.meta_key() && !e.alt_key() => {
                    e.prevent_default();
                    candidates.set(Vec::new());
                    on_cmd.emit(Cmd::KubectlClear);
                }
                _ => {}
            }
        })
    };

    let view = &props.view;
    // Nothing typed yet: the console is its prompt line only, and grows with its first output.
    let idle = view.earlier.is_empty() && view.last.is_none() && candidates.is_empty();
    html! {
        <section class={classes!("panel", "console-panel", idle.then_some("idle"))} aria-label="kubectl console">
            <div class="panel-head">
                <h2>{ "kubectl" }</h2>
                if running {
                    <span class="console-running" title="Ctrl+C stops it">{ "running · Ctrl+C stops" }</span>
                }
                <span class="hint muted">
                    { "Enter runs · ↑↓ history · Tab completes · Ctrl+L clears · apply -f - reads the editor" }
                </span>
            </div>
            <div class="term" ref={body_ref} {onscroll} {onclick}>
                { for view.earlier.iter().map(|e| html! { <Past key={e.id} entry={e.clone()} /> }) }
                { for view.last.as_deref().map(echo) }
                <pre class="out" data-testid="kubectl-output" role="log" aria-live="polite" aria-label="kubectl output">
                    { for view.last.as_deref().map(chunks) }
                </pre>
                if !candidates.is_empty() {
                    <div class="candidates" aria-live="polite">
                        { for candidates.iter().map(|c| html! { <span>{ c.clone() }</span> }) }
                    </div>
                }
                <label class="prompt">
                    <span class="ps1" aria-hidden="true">{ "$" }</span>
                    <input
                        ref={input_ref}
                        data-testid="kubectl-input"
                        type="text"
                        aria-label="kubectl command (Enter runs, Tab completes, Up/Down history)"
                        placeholder="kubectl get pods"
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        {onkeydown}
                        {oninput}
                    />
                </label>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_keeps_the_draft_like_a_shell() {
        let mut h = History::default();
        assert_eq!(h.up("x"), None);
        h.push("get pods");
        h.push("get pods");
        h.push("  ");
        h.push("get nodes");
        assert_eq!(h.up("half typed").as_deref(), Some("get nodes"));
        assert_eq!(h.up("get nodes").as_deref(), Some("get pods"));
        assert_eq!(h.up("get pods").as_deref(), Some("get pods"), "stays at the oldest");
        assert_eq!(h.down().as_deref(), Some("get nodes"));
        assert_eq!(h.down().as_deref(), Some("half typed"), "the draft comes back");
        assert_eq!(h.down(), None);
        h.push("scale");
        assert_eq!(h.up("").as_deref(), Some("scale"));
    }
}
