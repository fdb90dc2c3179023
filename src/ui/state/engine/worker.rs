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

use attention_worker::protocol::{Reply, Request};
use attention_worker::{Parts, RunError};
use js_sys::Reflect;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::Worker;

use crate::engine::{Scenario, Trace};

use crate::ui::{platform::timing, platform::workers, state::engine::choice};

/// The worker's script, relative to the page (Trunk writes it next to index.html), so the
/// build works under any sub-path.
pub const WORKER_URL: &str = "./engine_worker_loader.js";

/// How long the worker may take to load before the page gives up on it.
pub const START_TIMEOUT: Duration = Duration::from_secs(20);

/// What the worker computed for a scenario: the trace, or the engine's error.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The scenario it answers.
    pub scenario: Scenario,
    /// The trace, or the engine's error (as the page's own run gives it).
    pub result: Result<Arc<Trace>, RunError>,
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
    /// A scenario to compute once, for nothing, when the worker is ready (see [`warm`]).
    warm: Option<Scenario>,
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

/// Has the worker, once it is ready and if nothing is asked of it by then, compute
/// `scenario` (the picture on screen) and throw the result away: its first run is
/// otherwise slower than the next ones (its memory grows, its code warms up, the seeded
/// weights are made), and the first edit would pay for that (BENCHMARKS.md, 1.6 "A warm
/// worker").
pub fn warm(scenario: &Scenario) {
    CLIENT.with_borrow_mut(|c| {
        if !c.ready && c.warm.is_none() {
            c.warm = Some(scenario.clone());
        }
    });
}

/// Posts the newest request if the worker is ready and idle.
fn pump() {
    CLIENT.with_borrow_mut(|c| {
        let (Some(worker), true, None) = (&c.worker, c.ready, c.in_flight) else { return };
        let Some((id, scenario)) = &c.wanted else { return };
        if *id <= c.sent {
            return;
        }
        let msg = Request::Compute { id: *id, scenario_json: scenario.to_json() }.to_js();
        timing::mark("al-worker-post");
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
    let worker =
        workers::start(WORKER_URL, move |data| on_message(data, channel), move |why| fail(channel, &why))?;
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

fn on_message(msg: JsValue, channel: Channel) {
    let Some(reply) = Reply::from_js(&msg) else { return };
    let (id, times) = match &reply {
        Reply::Ready => {
            CLIENT.with_borrow_mut(|c| {
                c.ready = true;
                let warm = c.warm.take().filter(|_| c.wanted.is_none());
                if let (Some(worker), Some(scenario)) = (&c.worker, warm) {
                    let _ = worker.post_message(&Request::Warm { scenario_json: scenario.to_json() }.to_js());
                }
            });
            pump();
            return;
        }
        Reply::Trace { id, times, .. } | Reply::Error { id, times, .. } => (*id, *times),
    };
    timing::mark("al-worker-answer");
    // the worker's own times, as marks on the page's clock (read by the benchmarks)
    timing::mark_at("al-worker-received", times.received);
    timing::mark_at("al-worker-computed", times.computed);
    timing::mark_at("al-worker-sent", times.sent);
    let scenario = CLIENT.with_borrow_mut(|c| {
        if c.in_flight == Some(id) {
            c.in_flight = None;
        }
        c.wanted.as_ref().filter(|(w, _)| *w == id).map(|(_, s)| s.clone())
    });
    // an answer to an older request: drop it and send the newest
    let Some(scenario) = scenario else {
        recycle(&reply);
        pump();
        return;
    };
    timing::mark("al-engine-start");
    let result = match &reply {
        // the engine's error, with the control it is about, as the page's own run gives it
        Reply::Error { error, .. } => Err(error.clone()),
        Reply::Trace { meta, data, blocked, .. } => {
            let parts = Parts {
                meta: meta.clone(),
                data: data.iter().map(js_sys::Float64Array::to_vec).collect(),
                blocked: blocked.to_vec(),
            };
            match attention_worker::join(parts, &scenario) {
                Ok(trace) => Ok(Arc::new(trace)),
                Err(e) => {
                    web_sys::console::warn_1(
                        &format!("Attention Lens: unreadable answer from the worker ({e})").into(),
                    );
                    timing::mark("al-page-run");
                    choice::run(&scenario).map(Arc::new).map_err(RunError::from)
                }
            }
        }
        Reply::Ready => return,
    };
    timing::mark("al-engine-end");
    recycle(&reply);
    // the pictures in a task of their own: reading the answer and drawing it are two
    // tasks, each well under 50 ms at the stress size, and a keystroke can come between
    set_timeout(move || channel.answer.set(Some(Answer { scenario, result })), Duration::ZERO);
    pump();
}

/// Sends an answer's buffers back to the worker once they are read, for its next answer
/// (see `attention_worker`): filling buffers already in memory is faster than new ones.
fn recycle(reply: &Reply) {
    let Reply::Trace { data, blocked, .. } = reply else { return };
    let mut buffers: Vec<js_sys::ArrayBuffer> = data.iter().map(|a| a.buffer()).collect();
    buffers.push(blocked.buffer());
    let back = Request::Recycle { buffers };
    CLIENT.with_borrow(|c| {
        if let Some(worker) = &c.worker {
            // (if the transfer fails, the worker simply makes new buffers)
            let _ = worker.post_message_with_transfer(&back.to_js(), &back.transfer());
        }
    });
}

/// The bytes of a trace's numbers and mask: about what the next answer of the same size
/// will take in the page's memory while this trace is still shown.
pub fn trace_bytes(trace: &Trace) -> usize {
    let numbers: usize = trace.steps.iter().map(|s| s.data.len()).sum();
    numbers.saturating_mul(std::mem::size_of::<f64>()).saturating_add(trace.mask.blocked.len())
}

/// How much memory [`make_room`] takes in one idle callback (a few ms each).
const ROOM_STEP: usize = 4 << 20;

thread_local! {
    /// The largest room asked of [`make_room`] so far.
    static ROOM: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The blocks taken so far, kept until the room is complete, then freed together.
    static TAKEN: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// Makes room in the page's wasm memory for an answer of `bytes`, at idle moments: the
/// memory grows, and the system commits its pages, now, not inside the task that reads
/// the worker's first answer (BENCHMARKS.md, 1.6 "Memory made ready at idle moments").
/// It takes blocks of [`ROOM_STEP`], one per idle callback, each page written once, then
/// frees them all: the allocator keeps the memory for the next trace. Once is enough for
/// each size; later answers reuse what the traces before them freed.
pub fn make_room(bytes: usize) {
    if bytes <= ROOM.get() {
        return;
    }
    ROOM.set(bytes);
    take_room(bytes);
}

fn take_room(left: usize) {
    let step = move || {
        timing::mark("al-room-start");
        let n = left.min(ROOM_STEP);
        let mut block: Vec<u8> = Vec::new();
        let done = if block.try_reserve_exact(n).is_ok() {
            // one write per 4 KiB page commits it
            for page in block.spare_capacity_mut().chunks_mut(4096) {
                if let Some(byte) = page.first_mut() {
                    byte.write(1);
                }
            }
            std::hint::black_box(block.as_ptr());
            TAKEN.with_borrow_mut(|t| t.push(block));
            left <= n
        } else {
            true // no more memory: give up, the answer will grow it if it can
        };
        if done {
            let taken = TAKEN.take();
            drop(taken);
        } else {
            take_room(left - n);
        }
        timing::mark("al-room-end");
    };
    // requestIdleCallback where there is one (not in Safari), else a little later
    let window = web_sys::window();
    let idle = window
        .as_ref()
        .and_then(|w| Reflect::get(w, &"requestIdleCallback".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    match (window, idle) {
        (Some(w), Some(idle)) => {
            let callback = Closure::once_into_js(step);
            let options = js_sys::Object::new();
            let _ = Reflect::set(&options, &"timeout".into(), &JsValue::from_f64(1000.0));
            let _ = idle.call2(&w, &callback, &options);
        }
        _ => set_timeout(step, Duration::from_millis(50)),
    }
}
