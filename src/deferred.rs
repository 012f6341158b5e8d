//! The page's second module: code that nothing at first paint runs (kubectl's commands, the reader of scenario
//! files), moved out of the first download by `scripts/split-wasm.mjs` after the release build and loaded once the
//! page runs (docs/size.md). It shares this module's memory and table: once instantiated, its functions sit in the
//! table slots the first module calls them through. Until then such a call would trap, so whatever may run that code
//! waits for [`ready`]: a console line, a scenario or lesson file read, a session restored (`LiveRun`, Cmd::Deferred).
//!
//! A build without the split (a debug build, `trunk serve`, the native tests) has nothing to load: [`ready`] is true.

/// Whether the second module's code can run: loaded, or nothing to load.
pub fn ready() -> bool {
    imp::ready()
}

/// Loads the second module (what the page's `<meta name="kubeloop-deferred">` names, relative to the page), once;
/// `Ok` at once when it is loaded or when the build has none.
pub async fn load() -> Result<(), String> {
    imp::load().await
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use std::cell::Cell;

    use wasm_bindgen_futures::JsFuture;

    use crate::share::{fetch_bytes, js_error};

    thread_local! {
        /// Set once the second module is instantiated (or the page names none).
        static READY: Cell<bool> = const { Cell::new(false) };
    }

    pub fn ready() -> bool {
        READY.with(Cell::get) || module_name().is_none()
    }

    /// The second module's file, as the build wrote it into the page.
    fn module_name() -> Option<String> {
        let doc = web_sys::window()?.document()?;
        doc.query_selector("meta[name=kubeloop-deferred]").ok()??.get_attribute("content")
    }

    pub async fn load() -> Result<(), String> {
        if ready() {
            return Ok(());
        }
        let name = module_name().ok_or("the page names no second module")?;
        let bytes = fetch_bytes(&name).await?;
        let imports = js_sys::Object::new();
        js_sys::Reflect::set(&imports, &"primary".into(), &wasm_bindgen::exports()).map_err(js_error)?;
        JsFuture::from(js_sys::WebAssembly::instantiate_buffer(&bytes, &imports))
            .await
            .map_err(|e| format!("{name}: {}", js_error(e)))?;
        READY.with(|r| r.set(true));
        Ok(())
    }
}

/// Native tests: whether the code is "loaded" (it always is natively; a test holds it back to check what waits).
#[cfg(not(target_arch = "wasm32"))]
pub fn hold(held: bool) {
    imp::HELD.with(|h| h.set(held));
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::cell::Cell;

    thread_local! {
        /// Set by a native test that plays a page whose second module has not arrived.
        pub static HELD: Cell<bool> = const { Cell::new(false) };
    }

    pub fn ready() -> bool {
        !HELD.with(Cell::get)
    }

    pub async fn load() -> Result<(), String> {
        HELD.with(|h| h.set(false));
        Ok(())
    }
}
