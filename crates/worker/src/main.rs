//! The engine worker: a dedicated Web Worker that runs `attention_engine::run_reusing` off the
//! page's main thread. Trunk builds it from index.html (`data-type="worker"`,
//! `data-bindgen-target="no-modules"`, `data-loader-shim`): the page starts
//! `engine_worker_loader.js`, which loads `engine_worker.js` and `engine_worker_bg.wasm`.
//! The messages are described in the library (`attention_worker`).

#[cfg(target_arch = "wasm32")]
fn main() {
    use js_sys::{Array, ArrayBuffer, Float64Array, Object, Reflect, Uint8Array};
    use wasm_bindgen::prelude::*;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let set = |o: &Object, k: &str, v: &JsValue| {
        let _ = Reflect::set(o, &JsValue::from_str(k), v);
    };
    let reply = scope.clone();
    // absolute times (ms since the epoch, sub-millisecond): the page turns them into its
    // own marks (al-worker-received, -computed, -sent) to show where a round trip goes
    let clock = scope.performance();
    let now = move || clock.as_ref().map_or(0.0, |p| p.time_origin() + p.now());
    // The buffers of the last answer, which the page sends back once it has read them
    // (`{recycle: [ArrayBuffer, …]}`): filling a buffer whose pages are already in memory
    // is several times faster than filling a new one (27 MB: ~3 against 6–15 ms).
    let mut pool: Vec<ArrayBuffer> = Vec::new();
    // a pooled buffer of exactly `bytes` (never an empty, i.e. detached, one)
    let take = |pool: &mut Vec<ArrayBuffer>, bytes: usize| {
        let i = pool.iter().position(|b| bytes > 0 && b.byte_length() as usize == bytes)?;
        Some(pool.swap_remove(i))
    };
    // The last trace computed: the next request copies the numbers of every sentence
    // whose inputs did not change from it (`attention_engine::run_reusing`).
    let mut last: Option<attention_engine::Trace> = None;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let received = now();
        let msg = ev.data();
        // a warm-up: compute, answer nothing (the next run is the faster for it, and reuses
        // this trace's numbers)
        if let Some(json) = Reflect::get(&msg, &JsValue::from_str("warm")).ok().and_then(|v| v.as_string()) {
            last = attention_worker::compute(&json, last.as_ref()).ok();
            return;
        }
        if let Ok(buffers) =
            Reflect::get(&msg, &JsValue::from_str("recycle")).and_then(|b| b.dyn_into::<Array>())
        {
            pool = buffers.iter().filter_map(|b| b.dyn_into::<ArrayBuffer>().ok()).collect();
            return;
        }
        let id = Reflect::get(&msg, &JsValue::from_str("id")).unwrap_or(JsValue::NULL);
        let json = Reflect::get(&msg, &JsValue::from_str("scenario_json")).ok().and_then(|v| v.as_string());
        let out = Object::new();
        set(&out, "id", &id);
        let transfer = Array::new();
        // the sentences whose inputs did not change are copied from the last trace
        let result = json
            .ok_or_else(|| "no scenario_json in the request".to_string())
            .and_then(|j| attention_worker::compute(&j, last.as_ref()));
        let computed = now();
        match result {
            Ok(mut trace) => {
                set(&out, "meta", &JsValue::from_str(&attention_worker::meta(&mut trace)));
                let data = Array::new();
                // one copy each, out of wasm memory (the step's own numbers, which the
                // worker keeps for the next request), into a buffer the page sent back
                // when one has the size
                for step in &trace.steps {
                    let numbers = attention_worker::numbers(&step.data);
                    let a = match take(&mut pool, numbers.len() * 8) {
                        Some(buffer) => {
                            let a = Float64Array::new(&buffer);
                            a.copy_from(&numbers);
                            a
                        }
                        None => Float64Array::from(&*numbers),
                    };
                    transfer.push(&a.buffer());
                    data.push(&a);
                }
                set(&out, "data", &data);
                let mask = attention_worker::mask_bytes(&trace);
                let blocked = match take(&mut pool, mask.len()) {
                    Some(buffer) => Uint8Array::new(&buffer),
                    None => Uint8Array::new_with_length(mask.len() as u32),
                };
                blocked.copy_from(&mask);
                transfer.push(&blocked.buffer());
                set(&out, "blocked", &blocked);
                last = Some(trace);
            }
            Err(e) => set(&out, "error", &JsValue::from_str(&e)),
        }
        pool.clear();
        let times = Array::of3(&received.into(), &computed.into(), &now().into());
        set(&out, "times", &times);
        if reply.post_message_with_transfer(&out, &transfer).is_err() {
            let _ = reply.post_message(&out);
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let ready = Object::new();
    set(&ready, "ready", &JsValue::TRUE);
    let _ = scope.post_message(&ready);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("engine_worker is the page's Web Worker: Trunk builds it for wasm32 (see index.html).");
}
