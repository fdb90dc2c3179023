//! `performance.mark`s, read by the benchmark scripts.

use wasm_bindgen::JsCast;

use super::window;

/// `performance.mark(name)`, read by the benchmark scripts.
pub fn mark(name: &str) {
    if let Some(p) = window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// `performance.mark(name, {startTime})` for a time another context measured, given in
/// ms since the epoch (`timeOrigin + now()` there): the engine worker's own times.
pub fn mark_at(name: &str, epoch_ms: f64) {
    if let Some(p) = window().and_then(|w| w.performance()) {
        let start = epoch_ms - p.time_origin();
        // (web-sys has the options form only as an unstable API)
        let mark =
            js_sys::Reflect::get(&p, &"mark".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let (Some(mark), true) = (mark, start.is_finite() && start >= 0.0) {
            let options = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&options, &"startTime".into(), &start.into());
            let _ = mark.call2(&p, &name.into(), &options);
        }
    }
}
