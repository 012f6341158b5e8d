//! The session in the browser's local storage ([`crate::session`] says what it holds): read when the page opens,
//! written every two seconds when it changed and when the page is hidden or left, removed by Reset. A stored value
//! that does not read, is too large or is of another version gives a message and a fresh page, never a dead one.

use std::cell::Cell;

use wasm_bindgen::{JsCast, JsValue};

use crate::session::{SavedEntry, Session, KEY, MAX_CHARS, VERSION};

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn get(o: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(o, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn set(o: &js_sys::Object, key: &str, v: impl Into<JsValue>) {
    let _ = js_sys::Reflect::set(o, &key.into(), &v.into());
}

/// The stored session: none, one, or why the stored value was not used (it is removed then, so the message comes
/// once).
pub fn load() -> Result<Option<Session>, String> {
    let Some(store) = storage() else { return Ok(None) };
    let Ok(Some(raw)) = store.get_item(KEY) else { return Ok(None) };
    let read = read(&raw);
    if read.is_err() {
        let _ = store.remove_item(KEY);
    }
    read.map(Some)
}

fn read(raw: &str) -> Result<Session, String> {
    if raw.len() > MAX_CHARS * 2 {
        return Err(format!("it is {} characters, more than kubeloop keeps", raw.len()));
    }
    let v = js_sys::JSON::parse(raw).map_err(|_| "it is not JSON".to_string())?;
    if get(&v, "version").as_f64() != Some(f64::from(VERSION)) {
        return Err("it was written by another version of the page".to_string());
    }
    let editor = get(&v, "editor").as_string().ok_or("it has no editor text")?;
    let run = get(&v, "run").as_string();
    let playing = get(&v, "playing").as_bool().unwrap_or(true);
    let mut console = Vec::new();
    if let Ok(entries) = get(&v, "console").dyn_into::<js_sys::Array>() {
        for e in entries.iter() {
            let line = get(&e, "line").as_string().ok_or("a console entry has no line")?;
            let code = get(&e, "code").as_f64().map(|c| c as i32);
            let mut chunks = Vec::new();
            if let Ok(cs) = get(&e, "out").dyn_into::<js_sys::Array>() {
                for c in cs.iter() {
                    let kind = get(&c, "k").as_f64().unwrap_or(0.0) as u8;
                    chunks.push((kind, get(&c, "t").as_string().unwrap_or_default()));
                }
            }
            console.push(SavedEntry { line, chunks, code });
        }
    }
    Ok(Session { editor, run, playing, console })
}

/// Writes the session when it differs from `last` (what was written before); returns what was written, or why
/// nothing could be.
pub fn save(session: Session, last: &str) -> Result<String, String> {
    let s = session.bounded()?;
    let o = js_sys::Object::new();
    set(&o, "version", VERSION);
    set(&o, "editor", s.editor.as_str());
    if let Some(run) = &s.run {
        set(&o, "run", run.as_str());
        set(&o, "playing", s.playing);
    }
    let entries = js_sys::Array::new();
    for e in &s.console {
        let eo = js_sys::Object::new();
        set(&eo, "line", e.line.as_str());
        if let Some(c) = e.code {
            set(&eo, "code", c);
        }
        let out = js_sys::Array::new();
        for (k, t) in &e.chunks {
            let co = js_sys::Object::new();
            set(&co, "k", *k);
            set(&co, "t", t.as_str());
            out.push(&co);
        }
        set(&eo, "out", out);
        entries.push(&eo);
    }
    set(&o, "console", entries);
    let text: String = js_sys::JSON::stringify(&o).map_err(|_| "it does not serialize".to_string())?.into();
    if text != last {
        let store = storage().ok_or("this browser keeps no local storage here")?;
        store.set_item(KEY, &text).map_err(|_| "the browser's storage is full".to_string())?;
    }
    Ok(text)
}

thread_local! {
    static SUSPENDED: Cell<bool> = const { Cell::new(false) };
}

/// Whether saving stopped (Reset is reloading the page).
pub fn suspended() -> bool {
    SUSPENDED.with(Cell::get)
}

/// Forgets the stored session.
pub fn forget() {
    if let Some(s) = storage() {
        let _ = s.remove_item(KEY);
    }
}

/// Reset: forgets the stored session and opens the page afresh (no link, no seed): its default cluster and text.
pub fn reset() {
    SUSPENDED.with(|s| s.set(true));
    forget();
    if let Some(w) = web_sys::window() {
        let path = w.location().pathname().unwrap_or_else(|_| "./".into());
        let _ = w.location().replace(&path);
    }
}
