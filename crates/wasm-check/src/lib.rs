//! The engine compiled to `wasm32-unknown-unknown`, unchanged, behind a tiny C ABI with no imports, so that
//! `scripts/wasm-determinism.mjs` can run a scenario in Node.js and compare its summary (history hash included)
//! with the native runner's `kubeloop run FILE --json`. Same scenario, same seed: the same history on both.
//!
//! Protocol: the host writes bytes into buffers it gets from [`kl_alloc`], registers the files a scenario's
//! `kubectl -f` reads with [`kl_add_file`], calls [`kl_run`] with the scenario text, and reads the result (the
//! summary as pretty JSON with a trailing newline, exactly as the runner prints it, or `error: ...`) from
//! [`kl_output_ptr`] / [`kl_output_len`].

use std::cell::RefCell;
use std::collections::BTreeMap;

use kubeloop_engine::scenario::{RunOptions, Scenario};

thread_local! {
    static FILES: RefCell<BTreeMap<String, String>> = const { RefCell::new(BTreeMap::new()) };
    static OUTPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs a scenario with the registered files, returning what `kubeloop run --json` prints (or the error).
pub fn run_scenario(text: &str, files: &BTreeMap<String, String>) -> String {
    let scenario = match Scenario::parse(text) {
        Ok(s) => s,
        Err(e) => return format!("error: {e}\n"),
    };
    let read = |name: &str| files.get(name).cloned().ok_or_else(|| format!("the path \"{name}\" does not exist"));
    let opts = RunOptions { seed: None, until: None, read_file: Some(&read), max_events: None, timing: None };
    match scenario.run(opts) {
        Ok(outcome) => match serde_json::to_string_pretty(&outcome.summary) {
            Ok(mut json) => {
                json.push('\n');
                json
            }
            Err(e) => format!("error: {e}\n"),
        },
        Err(e) => format!("error: {e}\n"),
    }
}

/// A buffer of `len` bytes for the host to write into (never freed: the module runs one check and exits).
#[no_mangle]
pub extern "C" fn kl_alloc(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len];
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Reads `len` bytes the host wrote at `ptr` as UTF-8 (lossily).
///
/// # Safety
/// `ptr` must come from [`kl_alloc`] with at least `len` bytes.
unsafe fn text(ptr: *const u8, len: usize) -> String {
    String::from_utf8_lossy(std::slice::from_raw_parts(ptr, len)).into_owned()
}

/// Registers a file a scenario's `kubectl -f NAME` may read.
///
/// # Safety
/// Both buffers must come from [`kl_alloc`] with at least the given lengths.
#[no_mangle]
pub unsafe extern "C" fn kl_add_file(name: *const u8, name_len: usize, body: *const u8, body_len: usize) {
    let (n, b) = (text(name, name_len), text(body, body_len));
    FILES.with(|f| f.borrow_mut().insert(n, b));
}

/// Runs the scenario at `ptr`; the result is read with [`kl_output_ptr`] and [`kl_output_len`].
///
/// # Safety
/// `ptr` must come from [`kl_alloc`] with at least `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn kl_run(ptr: *const u8, len: usize) {
    let scenario = text(ptr, len);
    let out = FILES.with(|f| run_scenario(&scenario, &f.borrow()));
    OUTPUT.with(|o| *o.borrow_mut() = out.into_bytes());
}

#[no_mangle]
pub extern "C" fn kl_output_ptr() -> *const u8 {
    OUTPUT.with(|o| o.borrow().as_ptr())
}

#[no_mangle]
pub extern "C" fn kl_output_len() -> usize {
    OUTPUT.with(|o| o.borrow().len())
}
