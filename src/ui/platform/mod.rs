//! The browser's plumbing, one file per concern: the address, the screen, downloads,
//! index.html's first paint handed over, timing marks, canvas writes, the clipboard, the
//! service worker, starting a Web Worker, and the task queue.
//! Each fails quietly (a missing download is better than a dead page).
//!
//! Shared: imports nothing of `ui`.

use wasm_bindgen::JsCast;

pub mod address;
pub mod canvas;
pub mod clipboard;
pub mod files;
pub mod first_paint;
pub mod focus;
pub mod screen;
pub mod service_worker;
pub mod tasks;
pub mod timing;
pub mod workers;

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// Calls `obj[name](...args)` if it is a function; errors are ignored.
fn call_method(
    obj: &wasm_bindgen::JsValue,
    name: &str,
    args: &js_sys::Array,
) -> Option<wasm_bindgen::JsValue> {
    let f = js_sys::Reflect::get(obj, &name.into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    f.apply(obj, args).ok()
}
