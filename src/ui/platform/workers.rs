//! Starting a Web Worker with its message and error handlers (the engine's worker and
//! the training worker).

use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

/// Starts the worker at `url`: `on_message` gets each message's data, `on_error` why the
/// worker failed (its error event's message, or "it failed to load"); both handlers live
/// as long as the page. `Err` says why the browser would not make the worker.
pub fn start(
    url: &str,
    mut on_message: impl FnMut(JsValue) + 'static,
    mut on_error: impl FnMut(String) + 'static,
) -> Result<Worker, String> {
    let worker = Worker::new(url).map_err(|e| format!("{e:?}"))?;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| on_message(ev.data()));
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        ev.prevent_default();
        let why = ev
            .dyn_ref::<web_sys::ErrorEvent>()
            .map_or_else(|| "it failed to load".to_owned(), web_sys::ErrorEvent::message);
        on_error(why);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Ok(worker)
}
