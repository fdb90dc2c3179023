//! The page's side of the Python export: the script and the notebook are written by the
//! engine worker (`attention_worker::export`), not by the page, so the export writer and
//! its Python text are not in the page's wasm (BENCHMARKS.md, "Bytes cut"). The page
//! starts a worker of its own for it the first time a file is asked for, as the training
//! does, and keeps it for the next file.
//!
//! If the worker cannot start (no `Worker`, a content security policy, a load error, no
//! answer within [`START_TIMEOUT`]) every waiting request gets the reason, and the next
//! request tries again.

use std::cell::RefCell;
use std::collections::BTreeMap;

use attention_worker::protocol::{ExportKind, ExportReply, ExportRequest, Reply};
use leptos::prelude::set_timeout;
use wasm_bindgen::JsValue;
use web_sys::Worker;

use crate::engine::Scenario;
use crate::ui::platform::workers;
use crate::ui::state::engine::worker::{START_TIMEOUT, WORKER_URL};

/// What a request's caller gets: the file's text, or why there is none.
type Done = Box<dyn FnOnce(Result<String, String>)>;

#[derive(Default)]
struct Exporter {
    worker: Option<Worker>,
    ready: bool,
    /// How many workers were started: a start's timeout is about its own worker only.
    started: u64,
    next_id: u64,
    /// The requests not yet posted (the worker is not ready), in order.
    waiting: Vec<ExportRequest>,
    /// Every request not yet answered, by id.
    done: BTreeMap<u64, Done>,
}

thread_local! {
    static EXPORTER: RefCell<Exporter> = RefCell::new(Exporter::default());
}

/// Asks the worker for the `kind` file of `scenario`; `done` gets its text, or why it
/// could not be written (the engine's error, the export's refusal, or the worker's).
pub fn request(kind: ExportKind, scenario: &Scenario, done: impl FnOnce(Result<String, String>) + 'static) {
    let (start, post) = EXPORTER.with_borrow_mut(|e| {
        e.next_id += 1;
        let id = e.next_id;
        e.done.insert(id, Box::new(done));
        let request = ExportRequest { id, kind, scenario_json: scenario.to_json() };
        let start = e.worker.is_none();
        match (&e.worker, e.ready) {
            (Some(worker), true) => (start, Some((worker.clone(), request))),
            _ => {
                e.waiting.push(request);
                (start, None)
            }
        }
    });
    if let Some((worker, request)) = post {
        if worker.post_message(&request.to_js()).is_err() {
            fail("the request could not be posted to it");
        }
    }
    if start {
        start_worker();
    }
}

fn start_worker() {
    match workers::start(WORKER_URL, |data| on_message(&data), |why| fail(&why)) {
        Ok(worker) => {
            let started = EXPORTER.with_borrow_mut(|e| {
                e.worker = Some(worker);
                e.started += 1;
                e.started
            });
            set_timeout(
                move || {
                    if EXPORTER.with_borrow(|e| e.started == started && e.worker.is_some() && !e.ready) {
                        fail("it did not start in time");
                    }
                },
                START_TIMEOUT,
            );
        }
        Err(why) => fail(&why),
    }
}

fn on_message(msg: &JsValue) {
    if matches!(Reply::from_js(msg), Some(Reply::Ready)) {
        let (worker, waiting) = EXPORTER.with_borrow_mut(|e| {
            e.ready = true;
            (e.worker.clone(), std::mem::take(&mut e.waiting))
        });
        let Some(worker) = worker else { return };
        if waiting.iter().any(|r| worker.post_message(&r.to_js()).is_err()) {
            fail("the request could not be posted to it");
        }
        return;
    }
    let Some(reply) = ExportReply::from_js(msg) else { return };
    let (id, result) = match reply {
        ExportReply::Text { id, text } => (id, Ok(text)),
        ExportReply::Error { id, error } => (id, Err(error)),
    };
    if let Some(done) = EXPORTER.with_borrow_mut(|e| e.done.remove(&id)) {
        done(result);
    }
}

/// The worker failed: every request still waiting gets why, and the next one starts a
/// new worker.
fn fail(why: &str) {
    let (worker, done) = EXPORTER.with_borrow_mut(|e| {
        e.ready = false;
        e.waiting.clear();
        (e.worker.take(), std::mem::take(&mut e.done))
    });
    if let Some(w) = worker {
        w.terminate();
    }
    for (_, d) in done {
        d(Err(format!("The Python export is written by the engine worker, which is not available ({why}).")));
    }
}
