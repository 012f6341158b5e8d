//! Runs in and out of the page, on the browser's side: links (the run's scenario compressed by the browser's own
//! `CompressionStream` into the URL's fragment, which no server ever sees), links opened when the page loads or its
//! fragment changes, and scenario files chosen or dropped. What a link holds is the engine's
//! ([`kubeloop_engine::link`]); what opening one does is [`LiveRun::open`](crate::liverun::LiveRun::open).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::Callback;

use kubeloop_engine::link::{self, Link};

use crate::cmd::Cmd;

#[wasm_bindgen]
extern "C" {
    /// The Compression Streams API (web-sys has it behind its unstable flag only).
    #[wasm_bindgen(js_name = CompressionStream)]
    type Compressor;
    #[wasm_bindgen(constructor, js_class = "CompressionStream", catch)]
    fn new(format: &str) -> Result<Compressor, JsValue>;
    #[wasm_bindgen(js_name = DecompressionStream)]
    type Decompressor;
    #[wasm_bindgen(constructor, js_class = "DecompressionStream", catch)]
    fn new(format: &str) -> Result<Decompressor, JsValue>;
}

/// A JavaScript error's message.
pub(crate) fn js_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map_or_else(|| format!("{e:?}"), |e| String::from(e.message()))
}

/// A file of the site, fetched relative to the page (so it works from any sub-path): its response, or why not.
async fn fetch(name: &str) -> Result<web_sys::Response, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = JsFuture::from(window.fetch_with_str(name)).await.map_err(js_error)?;
    let response: web_sys::Response = response.dyn_into().map_err(js_error)?;
    if !response.ok() {
        return Err(format!("{name}: HTTP {}", response.status()));
    }
    Ok(response)
}

/// A text file of the site ([`fetch`]).
pub async fn fetch_text(name: &str) -> Result<String, String> {
    let response = fetch(name).await?;
    let text = JsFuture::from(response.text().map_err(js_error)?).await.map_err(js_error)?;
    text.as_string().ok_or_else(|| format!("{name}: not text"))
}

/// A file of the site as bytes ([`fetch`]).
pub async fn fetch_bytes(name: &str) -> Result<Vec<u8>, String> {
    let response = fetch(name).await?;
    let bytes = JsFuture::from(response.array_buffer().map_err(js_error)?).await.map_err(js_error)?;
    Ok(js_sys::Uint8Array::new(&bytes).to_vec())
}

/// `bytes` through a (de)compression stream, at most `limit` bytes out.
async fn pipe(bytes: &[u8], through: JsValue, limit: usize) -> Result<Vec<u8>, String> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(js_error)?;
    let out = blob.stream().pipe_through(through.unchecked_ref::<web_sys::ReadableWritablePair>());
    let reader: web_sys::ReadableStreamDefaultReader = out.get_reader().unchecked_into();
    let mut buf = Vec::new();
    loop {
        let step = JsFuture::from(reader.read()).await.map_err(js_error)?;
        let done = js_sys::Reflect::get(&step, &"done".into()).map_or(true, |d| d.is_truthy());
        if done {
            return Ok(buf);
        }
        let chunk = js_sys::Reflect::get(&step, &"value".into()).map_err(js_error)?;
        let chunk = js_sys::Uint8Array::new(&chunk);
        let at = buf.len();
        if at + chunk.length() as usize > limit {
            let _ = reader.cancel();
            return Err(format!("it expands to more than {} MiB, more than kubeloop opens", limit >> 20));
        }
        buf.resize(at + chunk.length() as usize, 0);
        chunk.copy_to(&mut buf[at..]);
    }
}

/// The link to a run: its scenario file compressed into the fragment of this page's address.
pub async fn make_link(text: String, hash: u64) -> Result<String, String> {
    let deflate =
        Compressor::new("deflate-raw").map_err(|e| format!("this browser cannot compress: {}", js_error(e)))?;
    let deflated = pipe(text.as_bytes(), deflate.into(), usize::MAX).await?;
    let fragment = link::run_fragment(&deflated, hash)?;
    // The page without its query (`?seed=`: the run holds its seed) or fragment.
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let page = href.split(['?', '#']).next().unwrap_or_default();
    Ok(link::with_fragment(page, &fragment))
}

/// Puts `text` on the clipboard, where the browser allows it: whether it did.
pub async fn copy(text: &str) -> bool {
    match write_clipboard(text) {
        Some(p) => JsFuture::from(p).await.is_ok(),
        None => false,
    }
}

/// Asks the browser to put `text` on the clipboard (`navigator.clipboard.writeText`): its promise, or `None` where
/// there is no clipboard API. The crash overlay calls it too, without waiting.
pub fn write_clipboard(text: &str) -> Option<js_sys::Promise> {
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let clip = js_sys::Reflect::get(&navigator, &"clipboard".into()).ok()?;
    let write = js_sys::Reflect::get(&clip, &"writeText".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    write.call1(&clip, &text.into()).ok()?.dyn_into().ok()
}

/// The fragment of this page's address (with its `#`), or "".
pub fn fragment() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Opens what the address's fragment names (nothing when it has none): a run is inflated first (a moment later).
pub fn open_fragment(fragment: &str, on_cmd: Callback<Cmd>) {
    let opening = match link::parse(fragment) {
        Ok(None) => return,
        Err(why) => Err(why),
        Ok(Some(Link::Run { run, hash })) => {
            wasm_bindgen_futures::spawn_local(async move {
                let opening = match inflate(&run).await {
                    Ok(text) => Ok(Link::Run { run: text, hash }),
                    Err(why) => Err(format!("its run does not read: {why}")),
                };
                on_cmd.emit(Cmd::Open(opening));
            });
            return;
        }
        Ok(Some(other)) => Ok(other.map_run(|_| String::new())),
    };
    on_cmd.emit(Cmd::Open(opening));
}

async fn inflate(deflated: &[u8]) -> Result<String, String> {
    let inflate =
        Decompressor::new("deflate-raw").map_err(|e| format!("this browser cannot decompress: {}", js_error(e)))?;
    let bytes = pipe(deflated, inflate.into(), link::MAX_TEXT).await.map_err(|e| {
        if e.contains("expands") {
            e
        } else {
            format!("it is not DEFLATE data, cut short when copied? ({e})")
        }
    })?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// Scenario files read at most (kubeloop's own bound, as for links).
const MAX_IMPORT_BYTES: f64 = link::MAX_TEXT as f64;

/// Reads a chosen or dropped scenario file and opens it ([`Cmd::Import`]).
pub fn read_scenario(file: web_sys::File, on_cmd: Callback<Cmd>) {
    use wasm_bindgen::closure::Closure;
    if file.size() > MAX_IMPORT_BYTES {
        on_cmd.emit(Cmd::Notice(format!(
            "{} is {} bytes: kubeloop opens scenario files of at most 8 MiB.",
            file.name(),
            file.size()
        )));
        return;
    }
    let Ok(reader) = web_sys::FileReader::new() else { return };
    let r = reader.clone();
    let onload = Closure::once_into_js(move || {
        if let Some(text) = r.result().ok().and_then(|v| v.as_string()) {
            on_cmd.emit(Cmd::Import(text));
        }
    });
    reader.set_onload(Some(onload.unchecked_ref()));
    let _ = reader.read_as_text(&file);
}
