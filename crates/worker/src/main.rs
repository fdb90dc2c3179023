//! The engine worker: a dedicated Web Worker that runs `attention_engine::run_reusing` off the
//! page's main thread. Trunk builds it from index.html (`data-type="worker"`,
//! `data-bindgen-target="no-modules"`): the page starts `engine_worker_loader.js`
//! (assets/workers), which loads `engine_worker.js` and `engine_worker_bg.wasm`.
//! The messages are the library's `attention_worker::protocol` types. The worker also
//! trains (`attention_worker::train`): the page starts a run, then asks for steps in slices,
//! and writes the Python export (`attention_worker::export`): the page asks for the file's text.

#[cfg(target_arch = "wasm32")]
fn main() {
    use attention_worker::protocol::{
        ExportReply, ExportRequest, Reply, Request, Times, TrainReply, TrainRequest,
    };
    use js_sys::{ArrayBuffer, Float64Array, Uint8Array};
    use wasm_bindgen::prelude::*;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    // absolute times (ms since the epoch, sub-millisecond): the page turns them into its
    // own marks (al-worker-received, -computed, -sent) to show where a round trip goes
    let clock = scope.performance();
    let now = move || clock.as_ref().map_or(0.0, |p| p.time_origin() + p.now());
    // The buffers of the last answer, which the page sends back once it has read them
    // (`Request::Recycle`): filling a buffer whose pages are already in memory is several
    // times faster than filling a new one (BENCHMARKS.md, 1.6 "One copy in the worker").
    let mut pool: Vec<ArrayBuffer> = Vec::new();
    // a pooled buffer of exactly `bytes` (never an empty, i.e. detached, one)
    let take = |pool: &mut Vec<ArrayBuffer>, bytes: usize| {
        let i = pool.iter().position(|b| bytes > 0 && b.byte_length() as usize == bytes)?;
        Some(pool.swap_remove(i))
    };
    // The last trace computed: the next request copies the numbers of every sentence
    // whose inputs did not change from it (`attention_engine::run_reusing`).
    let mut last: Option<attention_engine::Trace> = None;
    // The training run, between its messages (`TrainRequest::Start`, then `Steps`).
    let mut session: Option<attention_worker::train::Session> = None;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let received = now();
        if let Some(ExportRequest { id, kind, scenario_json }) = ExportRequest::from_js(&ev.data()) {
            let answer = match attention_worker::export(kind, &scenario_json) {
                Ok(text) => ExportReply::Text { id, text },
                Err(error) => ExportReply::Error { id, error },
            };
            let _ = reply.post_message(&answer.to_js());
            return;
        }
        if let Some(request) = TrainRequest::from_js(&ev.data()) {
            let answer = match request {
                TrainRequest::Start { id, config_json } => {
                    match attention_worker::train::Session::start(&config_json) {
                        Ok(mut started) => {
                            let progress_json = attention_worker::train::progress_json(&started.advance(0));
                            session = Some(started);
                            TrainReply::Progress { id, progress_json }
                        }
                        Err(e) => {
                            session = None;
                            TrainReply::Error { id, error: e.to_string() }
                        }
                    }
                }
                TrainRequest::Checkpoint { id, step } => {
                    match session.as_ref().and_then(|run| run.checkpoint(step)) {
                        Some(c) => TrainReply::Checkpoint {
                            id,
                            checkpoint_json: attention_worker::train::checkpoint_json(&c),
                        },
                        None => TrainReply::Error {
                            id,
                            error: String::from("no training run: start one with a configuration first"),
                        },
                    }
                }
                TrainRequest::Gradient { id, name, i, j } => {
                    match session.as_ref().map(|run| run.gradient(&name, i, j)) {
                        Some(Ok(view)) => TrainReply::Gradient {
                            id,
                            gradient_json: attention_worker::train::gradient_json(&view),
                        },
                        Some(Err(error)) => TrainReply::Error { id, error },
                        None => TrainReply::Error {
                            id,
                            error: String::from("no training run: start one with a configuration first"),
                        },
                    }
                }
                TrainRequest::Steps { id, steps } => match session.as_mut() {
                    Some(run) => TrainReply::Progress {
                        id,
                        progress_json: attention_worker::train::progress_json(&run.advance(steps)),
                    },
                    None => TrainReply::Error {
                        id,
                        error: String::from("no training run: start one with a configuration first"),
                    },
                },
            };
            let _ = reply.post_message(&answer.to_js());
            return;
        }
        let (id, scenario_json) = match Request::from_js(&ev.data()) {
            // a warm-up: compute, answer nothing (the next run is the faster for it, and
            // reuses this trace's numbers)
            Some(Request::Warm { scenario_json }) => {
                last = attention_worker::compute(&scenario_json, last.as_ref()).ok();
                return;
            }
            Some(Request::Recycle { buffers }) => {
                pool = buffers;
                return;
            }
            Some(Request::Compute { id, scenario_json }) => (id, scenario_json),
            None => return,
        };
        // the sentences whose inputs did not change are copied from the last trace
        let result = attention_worker::compute(&scenario_json, last.as_ref());
        let computed = now();
        let outcome = match result {
            Ok(mut trace) => {
                let meta = attention_worker::meta(&mut trace);
                // one copy each, out of wasm memory (the step's own numbers, which the
                // worker keeps for the next request), into a buffer the page sent back
                // when one has the size
                let data = trace
                    .steps
                    .iter()
                    .map(|step| {
                        let numbers = attention_worker::numbers(&step.data);
                        match take(&mut pool, numbers.len() * 8) {
                            Some(buffer) => {
                                let a = Float64Array::new(&buffer);
                                a.copy_from(&numbers);
                                a
                            }
                            None => Float64Array::from(&*numbers),
                        }
                    })
                    .collect();
                let mask = attention_worker::mask_bytes(&trace);
                let blocked = match take(&mut pool, mask.len()) {
                    Some(buffer) => Uint8Array::new(&buffer),
                    None => Uint8Array::new_with_length(mask.len() as u32),
                };
                blocked.copy_from(&mask);
                last = Some(trace);
                Ok((meta, data, blocked))
            }
            Err(error) => Err(error),
        };
        pool.clear();
        let times = Times { received, computed, sent: now() };
        let answer = match outcome {
            Ok((meta, data, blocked)) => Reply::Trace { id, meta, data, blocked, times },
            Err(error) => Reply::Error { id, error, times },
        };
        let msg = answer.to_js();
        if reply.post_message_with_transfer(&msg, &answer.transfer()).is_err() {
            let _ = reply.post_message(&msg);
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&Reply::Ready.to_js());
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("engine_worker is the page's Web Worker: Trunk builds it for wasm32 (see index.html).");
}
