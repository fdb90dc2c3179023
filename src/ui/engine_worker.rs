//! The page's side of the engine worker (`crates/worker`): large scenarios are computed
//! there, off the main thread, so typing stays responsive (see README, "Large inputs").
//!
//! Only the newest request matters: one request is in flight at a time; a newer scenario
//! waits (replacing any older waiting one) and is sent when the answer in flight comes
//! back; an answer for anything but the newest request is dropped. The worker is started
//! the first time a large scenario comes; until it says it is ready, requests wait. If it
//! cannot start (no `Worker`, a content security policy, a load error, no answer within
//! [`START_TIMEOUT`]), [`Channel::failed`] is set and the page runs the engine itself.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use attention_worker::Parts;
use js_sys::{Array, Float64Array, Reflect, Uint8Array};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

use crate::engine::{EngineError, Scenario, Trace};

use super::{dom, state};

/// The worker's script, relative to the page (Trunk writes it next to index.html), so the
/// build works under any sub-path.
const WORKER_URL: &str = "./engine_worker_loader.js";

/// How long the worker may take to load before the page gives up on it.
pub const START_TIMEOUT: Duration = Duration::from_secs(20);

/// What the worker computed for a scenario: the trace, or the engine's error.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The scenario it answers.
    pub scenario: Scenario,
    /// The trace, or the engine's error (as the page's own run gives it).
    pub result: Result<Arc<Trace>, EngineError>,
}

/// The signals the worker writes: its newest answer, and whether it failed.
#[derive(Clone, Copy)]
pub struct Channel {
    /// The answer to the newest request, once it is there.
    pub answer: RwSignal<Option<Answer>>,
    /// True once the worker could not start or stopped: the page then runs the engine.
    pub failed: RwSignal<bool>,
}

impl Channel {
    /// Two fresh signals.
    pub fn new() -> Self {
        Self { answer: RwSignal::new(None), failed: RwSignal::new(false) }
    }
}

impl Default for Channel {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Default)]
struct Client {
    worker: Option<Worker>,
    started: bool,
    ready: bool,
    failed: bool,
    next_id: u64,
    /// The newest request and its id.
    wanted: Option<(u64, Scenario)>,
    /// The id of the request the worker is computing, if any.
    in_flight: Option<u64>,
    /// The highest id posted so far.
    sent: u64,
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client::default());
}

/// Asks the worker for `scenario` (starting it the first time). Asking again for the
/// scenario already asked for does nothing.
pub fn request(scenario: &Scenario, channel: Channel) {
    let asked = CLIENT.with_borrow_mut(|c| {
        if c.failed || c.wanted.as_ref().is_some_and(|(_, s)| s == scenario) {
            return false;
        }
        c.next_id += 1;
        c.wanted = Some((c.next_id, scenario.clone()));
        true
    });
    if asked {
        start(channel);
        pump();
    }
}

/// Starts the worker (if it is not started), so that it is ready for the next request.
pub fn start(channel: Channel) {
    let start = CLIENT.with_borrow_mut(|c| !c.failed && !std::mem::replace(&mut c.started, true));
    if start {
        if let Err(why) = start_worker(channel) {
            fail(channel, &why);
        }
    }
}

/// Posts the newest request if the worker is ready and idle.
fn pump() {
    CLIENT.with_borrow_mut(|c| {
        let (Some(worker), true, None) = (&c.worker, c.ready, c.in_flight) else { return };
        let Some((id, scenario)) = &c.wanted else { return };
        if *id <= c.sent {
            return;
        }
        let msg = js_sys::Object::new();
        let _ = Reflect::set(&msg, &"id".into(), &JsValue::from_f64(*id as f64));
        let _ = Reflect::set(&msg, &"scenario_json".into(), &JsValue::from_str(&scenario.to_json()));
        dom::mark("al-worker-post");
        if worker.post_message(&msg).is_ok() {
            c.in_flight = Some(*id);
            c.sent = *id;
        }
    });
}

fn fail(channel: Channel, why: &str) {
    let worker = CLIENT.with_borrow_mut(|c| {
        c.failed = true;
        c.worker.take()
    });
    if let Some(w) = worker {
        w.terminate();
    }
    web_sys::console::warn_1(
        &format!("Attention Lens: the engine worker is not available ({why}); computing on the page.").into(),
    );
    // from a callback, never inside the effect that asked: the page's memo reruns itself
    set_timeout(move || channel.failed.set(true), Duration::ZERO);
}

fn start_worker(channel: Channel) -> Result<(), String> {
    let worker = Worker::new(WORKER_URL).map_err(|e| format!("{e:?}"))?;
    let on_message =
        Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| on_message(ev.data(), channel));
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        ev.prevent_default();
        let text = ev
            .dyn_ref::<web_sys::ErrorEvent>()
            .map_or_else(|| "it failed to load".to_string(), |e| e.message());
        fail(channel, &text);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    CLIENT.with_borrow_mut(|c| c.worker = Some(worker));
    set_timeout(
        move || {
            if CLIENT.with_borrow(|c| !c.ready && !c.failed) {
                fail(channel, "it did not start in time");
            }
        },
        START_TIMEOUT,
    );
    Ok(())
}

fn get(msg: &JsValue, key: &str) -> JsValue {
    Reflect::get(msg, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn on_message(msg: JsValue, channel: Channel) {
    if get(&msg, "ready").is_truthy() {
        CLIENT.with_borrow_mut(|c| c.ready = true);
        pump();
        return;
    }
    let id = get(&msg, "id").as_f64().map_or(0, |x| x as u64);
    let scenario = CLIENT.with_borrow_mut(|c| {
        if c.in_flight == Some(id) {
            c.in_flight = None;
        }
        c.wanted.as_ref().filter(|(w, _)| *w == id).map(|(_, s)| s.clone())
    });
    // an answer to an older request: drop it and send the newest
    let Some(scenario) = scenario else {
        pump();
        return;
    };
    dom::mark("al-engine-start");
    let result = match get(&msg, "error").as_string() {
        // the engine's error, with its variant, as the page's own run gives it: every
        // error is found before the heavy work, so this run is short
        Some(_) => state::run(&scenario).map(Arc::new),
        None => {
            let data = Array::from(&get(&msg, "data"));
            let parts = Parts {
                meta: get(&msg, "meta").as_string().unwrap_or_default(),
                data: data.iter().map(|a| Float64Array::from(a).to_vec()).collect(),
                blocked: Uint8Array::from(get(&msg, "blocked")).to_vec(),
            };
            match attention_worker::join(parts, &scenario) {
                Ok(trace) => Ok(Arc::new(trace)),
                Err(e) => {
                    web_sys::console::warn_1(
                        &format!("Attention Lens: unreadable answer from the worker ({e})").into(),
                    );
                    state::run(&scenario).map(Arc::new)
                }
            }
        }
    };
    dom::mark("al-engine-end");
    channel.answer.set(Some(Answer { scenario, result }));
    pump();
}
