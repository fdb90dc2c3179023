//! The page's address: its query and fragment, read and replaced without a history entry.

use wasm_bindgen::JsCast;

use super::window;

/// The current URL's query as decoded key–value pairs.
pub fn query_pairs() -> Vec<(String, String)> {
    window().and_then(|w| w.location().search().ok()).map_or_else(Vec::new, |search| pairs_of(&search))
}

/// A query (`?a=1&b=2`, its `?` optional) as decoded key–value pairs, as the browser's
/// `URLSearchParams` reads it (also in a worker, which has no `window`: the first-paint
/// worker, src/bin/first_paint.rs).
pub fn pairs_of(search: &str) -> Vec<(String, String)> {
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(search) else {
        return Vec::new();
    };
    let mut pairs = Vec::new();
    // UrlSearchParams is iterable as [key, value] arrays.
    if let Ok(Some(iter)) = js_sys_iter(&params) {
        for entry in iter {
            let Ok(entry) = entry else { continue };
            let arr: js_sys::Array = entry.unchecked_into();
            if let (Some(k), Some(v)) = (arr.get(0).as_string(), arr.get(1).as_string()) {
                pairs.push((k, v));
            }
        }
    }
    pairs
}

fn js_sys_iter(params: &web_sys::UrlSearchParams) -> Result<Option<js_sys::IntoIter>, wasm_bindgen::JsValue> {
    js_sys::try_iter(params.as_ref())
}

/// The current URL's fragment, with its `#` (empty when there is none).
pub fn fragment() -> String {
    window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Replaces the URL's query and fragment (`#…`, or empty for none) without adding a
/// history entry (live state, not navigation).
pub fn replace_query(pairs: &[(&str, String)], fragment: &str) {
    let Some(w) = window() else { return };
    let Ok(params) = web_sys::UrlSearchParams::new() else { return };
    for (k, v) in pairs {
        params.append(k, v);
    }
    let query: String = params.to_string().into();
    let path = w.location().pathname().unwrap_or_default();
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{path}?{query}{fragment}")),
        );
    }
}

/// The page's current address, query included.
pub fn href() -> String {
    window().and_then(|w| w.location().href().ok()).unwrap_or_default()
}
