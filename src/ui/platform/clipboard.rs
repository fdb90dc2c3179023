//! The clipboard: the one place the page writes to it, without web-sys's unstable
//! Clipboard API.

use wasm_bindgen::{JsCast, JsValue};

use super::{call_method, window};

/// Calls `navigator.clipboard.writeText(text)`, giving what it returned (its promise);
/// `None` where the page has no clipboard (an insecure origin) or the call failed.
fn write_text(text: &str) -> Option<JsValue> {
    let w = window()?;
    let navigator = js_sys::Reflect::get(&w, &"navigator".into()).ok()?;
    let clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into()).ok()?;
    if clipboard.is_undefined() || clipboard.is_null() {
        return None;
    }
    call_method(&clipboard, "writeText", &js_sys::Array::of1(&text.into()))
}

/// Copies text to the clipboard (`navigator.clipboard.writeText`), quietly doing nothing
/// where the browser refuses (an insecure origin, no permission).
pub fn copy_text(text: &str) {
    let _ = write_text(text);
}

/// Copies `text` with `navigator.clipboard.writeText`; on failure (no permission, an
/// insecure page) selects the text of `fallback` so that Ctrl+C copies it.
pub fn copy_or_select(
    text: String,
    fallback: Option<web_sys::HtmlElement>,
    status: impl Fn(String) + Copy + 'static,
) {
    let promise = write_text(&text).and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    let select = move || {
        if let Some(el) = fallback {
            select_text(&el);
            status("Selected: press Ctrl+C (⌘C) to copy.".into());
        } else {
            status("Copying is not available here.".into());
        }
    };
    match promise {
        Some(p) => wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(p).await {
                Ok(_) => status("Copied.".into()),
                Err(_) => select(),
            }
        }),
        None => select(),
    }
}

/// Selects the text of an element (`getSelection().selectAllChildren(el)`).
fn select_text(el: &web_sys::HtmlElement) {
    let Some(window) = web_sys::window() else { return };
    let Ok(get) = js_sys::Reflect::get(&window, &JsValue::from_str("getSelection")) else { return };
    let Ok(get) = get.dyn_into::<js_sys::Function>() else { return };
    let Ok(selection) = get.call0(&window) else { return };
    if let Ok(f) = js_sys::Reflect::get(&selection, &JsValue::from_str("selectAllChildren")) {
        if let Ok(f) = f.dyn_into::<js_sys::Function>() {
            let _ = f.call1(&selection, el);
        }
    }
}
