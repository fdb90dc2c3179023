//! The service worker that keeps the page working offline.

use wasm_bindgen::JsCast;

use super::{call_method, window};

/// Registers the service worker `sw.js` next to the page (offline after the first visit).
/// Release builds get the caching worker, debug builds (`trunk serve`) one that removes
/// itself: see scripts/service-worker.sh. Where service workers are unavailable (an
/// insecure origin, a private window that refuses them) nothing happens.
pub fn register_service_worker() {
    let Some(w) = window() else { return };
    let Ok(navigator) = js_sys::Reflect::get(&w, &"navigator".into()) else { return };
    let Ok(container) = js_sys::Reflect::get(&navigator, &"serviceWorker".into()) else { return };
    if container.is_undefined() || container.is_null() {
        return;
    }
    let Some(promise) = call_method(&container, "register", &js_sys::Array::of1(&"./sw.js".into())) else {
        return;
    };
    let Ok(promise) = promise.dyn_into::<js_sys::Promise>() else { return };
    // Handle the promise, so that a refusal is not an "uncaught" error in the console.
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = wasm_bindgen_futures::JsFuture::from(promise).await {
            leptos::logging::warn!("service worker not registered: {e:?}");
        }
    });
}
