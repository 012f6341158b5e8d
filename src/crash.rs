//! When the page panics: an overlay that says what happened and hands over what reproduces it (the seed, the run as
//! a scenario file, the editor's text), and a reload. The release build aborts on panic (`panic = "abort"`), so the
//! hook builds the overlay itself, in plain DOM, before the abort; the live run is then unreachable (it was borrowed
//! when it panicked), so [`LiveRun`](crate::liverun::LiveRun) keeps a copy of its record here as it goes: the
//! starting cluster and each intervention, never borrowed for longer than a push.

use std::cell::{Cell, RefCell};

use kubeloop_engine::scenario::{Action, Record};

thread_local! {
    /// A mirror of the live run's record (none before the run starts).
    static RECORD: RefCell<Option<Record>> = const { RefCell::new(None) };
    /// The simulated time the run last stood at (the reproduction runs to it).
    static NOW: Cell<u64> = const { Cell::new(0) };
}

/// The run stands at simulated time `now` (ms).
pub fn note_time(now: u64) {
    let _ = NOW.try_with(|n| n.set(now));
}

fn with(f: impl FnOnce(&mut Record)) {
    let _ = RECORD.try_with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if let Some(r) = r.as_mut() {
                f(r);
            }
        }
    });
}

/// The run's record as it is now: a run that starts (or starts again), or an opened one with its actions.
pub fn note_record(record: &Record) {
    let _ = RECORD.try_with(|r| r.try_borrow_mut().map(|mut r| *r = Some(record.clone())));
}

/// The run recorded an intervention.
pub fn note_action(a: &Action) {
    with(|r| {
        r.performed(a.clone());
    });
}

/// The recorded action `i`'s command was interrupted at `now`: its `for:`.
pub fn note_stop(i: usize, now: u64) {
    with(|r| {
        r.stopped(i, now);
    });
}

/// The run is no longer exportable exactly, and why.
pub fn note_unrecordable(why: Option<&str>) {
    with(|r| {
        if let Some(why) = why {
            r.not_exact(why.to_string());
        }
    });
}

/// The run as a scenario file (what Export would download, marked when it is not exact), and its seed; `None`
/// when the record is not readable (the panic happened while it was being written).
pub fn reproduction() -> Option<(u64, String)> {
    RECORD
        .try_with(|r| {
            let r = r.try_borrow().ok()?;
            let r = r.as_ref()?;
            let seed = r.base().seed.unwrap_or(kubeloop_engine::scenario::DEFAULT_SEED);
            let until = NOW.try_with(Cell::get).ok().unwrap_or(0);
            let mut text = r.scenario(until).to_yaml();
            if let Some(why) = r.unrecordable() {
                text.insert_str(0, &format!("# Not exact: {why}.\n"));
            }
            Some((seed, text))
        })
        .ok()
        .flatten()
}

/// Installs the panic hook (the page's first act).
#[cfg(target_arch = "wasm32")]
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let what = info.to_string();
        web_sys::console::error_1(&format!("kubeloop panicked: {what}").into());
        overlay::show(&what);
    }));
}

/// A panic on purpose, for the browser test of the overlay (`window.wasmBindings.kubeloop_test_panic()`): no
/// control of the page reaches it.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn kubeloop_test_panic() {
    panic!("a panic on purpose (the crash overlay's test path)");
}

#[cfg(target_arch = "wasm32")]
mod overlay {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    use web_sys::{Document, Element};

    fn add(parent: &Element, child: &Element) -> Option<()> {
        parent.append_child(child).ok().map(|_| ())
    }

    fn el(doc: &Document, tag: &str, class: &str, text: &str) -> Option<Element> {
        let e = doc.create_element(tag).ok()?;
        if !class.is_empty() {
            e.set_class_name(class);
        }
        if !text.is_empty() {
            e.set_text_content(Some(text));
        }
        Some(e)
    }

    /// A read-only text area holding `text`, under a heading, with a Copy button and (given a file name) a download
    /// link: plain DOM, as little of the (aborted) program as possible behind the buttons.
    fn block(
        doc: &Document,
        parent: &Element,
        title: &str,
        text: &str,
        testid: &str,
        file: Option<&str>,
    ) -> Option<()> {
        let section = el(doc, "section", "crash-block", "")?;
        add(&section, &el(doc, "h3", "", title)?)?;
        let area = el(doc, "textarea", "crash-text", "")?;
        area.set_attribute("readonly", "").ok()?;
        area.set_attribute("data-testid", testid).ok()?;
        area.set_attribute("aria-label", title).ok()?;
        area.set_text_content(Some(text));
        add(&section, &area)?;
        let actions = el(doc, "div", "crash-actions", "")?;
        let copy = el(doc, "button", "btn", "Copy")?;
        let owned = text.to_string();
        let on_copy = Closure::<dyn FnMut()>::new(move || {
            let _ = crate::share::write_clipboard(&owned);
        });
        copy.add_event_listener_with_callback("click", on_copy.as_ref().unchecked_ref()).ok()?;
        on_copy.forget();
        add(&actions, &copy)?;
        if let Some(name) = file {
            let parts = js_sys::Array::of1(&text.into());
            let blob = web_sys::Blob::new_with_str_sequence(&parts).ok()?;
            let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
            let link = el(doc, "a", "btn", "Download")?;
            link.set_attribute("href", &url).ok()?;
            link.set_attribute("download", name).ok()?;
            link.set_attribute("data-testid", "crash-export").ok()?;
            add(&actions, &link)?;
        }
        add(&section, &actions)?;
        add(parent, &section)?;
        Some(())
    }

    pub fn show(what: &str) {
        let _ = build(what);
    }

    fn build(what: &str) -> Option<()> {
        let doc = web_sys::window()?.document()?;
        let body = doc.body()?;
        if doc.query_selector("[data-testid=crash-overlay]").ok().flatten().is_some() {
            return Some(());
        }
        // The editor's text, from the page as it stands (the program's own copy is out of reach).
        let editor = crate::components::editor::current_text().unwrap_or_default();
        let overlay = el(&doc, "div", "crash-overlay", "")?;
        overlay.set_attribute("data-testid", "crash-overlay").ok()?;
        overlay.set_attribute("role", "alertdialog").ok()?;
        overlay.set_attribute("aria-label", "kubeloop stopped").ok()?;
        let panel = el(&doc, "div", "crash-panel", "")?;
        add(&panel, &el(&doc, "h2", "", "kubeloop stopped: an internal error")?)?;
        let said = "The simulation cannot go on in this tab. What reproduces it is below: the run as a scenario file \
                    (`kubeloop run FILE` replays it; Open… in a fresh page does too) and your editor's text. Reporting \
                    it with both helps.";
        add(&panel, &el(&doc, "p", "", said)?)?;
        add(&panel, &el(&doc, "pre", "crash-what", what)?)?;
        match super::reproduction() {
            Some((seed, run)) => {
                let seed_line = el(&doc, "p", "crash-seed", &format!("seed {seed}"))?;
                seed_line.set_attribute("data-testid", "crash-seed").ok()?;
                add(&panel, &seed_line)?;
                block(&doc, &panel, "The run (a scenario file)", &run, "crash-run", Some("kubeloop-crash.yaml"))?;
            }
            None => {
                add(&panel, &el(&doc, "p", "", "The run's record could not be read.")?)?;
            }
        }
        block(&doc, &panel, "Your editor's text", &editor, "crash-editor", None)?;
        let reload = el(&doc, "button", "btn primary", "Reload the page")?;
        reload.set_attribute("data-testid", "crash-reload").ok()?;
        let on_reload = Closure::<dyn FnMut()>::new(|| {
            if let Some(w) = web_sys::window() {
                let _ = w.location().reload();
            }
        });
        reload.add_event_listener_with_callback("click", on_reload.as_ref().unchecked_ref()).ok()?;
        on_reload.forget();
        add(&panel, &reload)?;
        add(&overlay, &panel)?;
        add(&body, &overlay)?;
        Some(())
    }
}
