//! The page's side of a training run: the engine worker trains (a worker of its own,
//! beside the explorer's, so training never waits for a trace nor a trace for training),
//! the page asks for steps in slices and shows each answer.
//!
//! One request is in flight at a time. Playing fast, the next slice is asked for as soon
//! as an answer arrives, before the page draws it, so the worker trains while the page
//! draws; a slice is sized so that an answer comes about [`SLICE_MS`] after its request:
//! the curve and the maps redraw a few times a second, not every step, and the page's
//! thread stays free for typing between answers. Playing to watch, a slice is
//! [`WATCH_SLICE`] steps every [`WATCH_MS`], slow enough to see a map change. An answer
//! to a run that was replaced (Reset, a changed setting) is dropped.

use std::cell::RefCell;

use attention_worker::protocol::{Reply, TrainReply, TrainRequest};
use attention_worker::train::{
    checkpoint_from_json, gradient_from_json, progress_from_json, Checkpoint, GradientView, ProbeView,
    Progress,
};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::Worker;

use crate::engine::train::StepStats;

use crate::ui::learn::settings::LearnSettings;
use crate::ui::platform::workers;
use crate::ui::state::engine::worker::WORKER_URL;

/// How long a slice of steps should take, round trip: about five answers a second.
pub const SLICE_MS: f64 = 200.0;

/// The most steps in one slice.
const MAX_SLICE: usize = 2000;

/// Steps per slice when playing to watch.
pub const WATCH_SLICE: usize = 5;

/// Time between answers when playing to watch, ms (with [`WATCH_SLICE`]: 50 steps a second).
pub const WATCH_MS: f64 = 100.0;

/// The run as the page shows it.
#[derive(Clone, Copy)]
pub struct LearnRun {
    /// What is trained.
    pub settings: RwSignal<LearnSettings>,
    /// Play was pressed and not yet paused (nor the budget reached).
    pub playing: RwSignal<bool>,
    /// Steps taken since the start of the run.
    pub steps_done: RwSignal<usize>,
    /// Every step's loss and accuracy on its batch, before its update.
    pub history: RwSignal<Vec<StepStats>>,
    /// The model now, on the probe batch.
    pub probe: RwSignal<Option<ProbeView>>,
    /// The engine's message for a bad configuration, or why training cannot run.
    pub error: RwSignal<Option<String>>,
    /// Training speed over the last slice, steps per second (the page's clock).
    pub rate: RwSignal<Option<f64>>,
    /// Play as fast as the worker trains (else slowly enough to watch).
    pub fast: RwSignal<bool>,
    /// The checkpoint shown instead of the model now, while the learner steps back.
    pub scrubbed: RwSignal<Option<Checkpoint>>,
    /// A request is in flight (after Pause, its slice still arrives).
    pub busy: RwSignal<bool>,
    /// The weight cell's gradient the learner asked about, or why it could not be had.
    pub gradient: RwSignal<Option<Result<GradientView, String>>>,
}

impl LearnRun {
    /// A run of `settings`, not started.
    pub fn new(settings: RwSignal<LearnSettings>) -> Self {
        Self {
            settings,
            playing: RwSignal::new(false),
            steps_done: RwSignal::new(0),
            history: RwSignal::new(Vec::new()),
            probe: RwSignal::new(None),
            error: RwSignal::new(None),
            rate: RwSignal::new(None),
            fast: RwSignal::new(false),
            scrubbed: RwSignal::new(None),
            busy: RwSignal::new(false),
            gradient: RwSignal::new(None),
        }
    }

    /// Starts the run again from step 0 with the current settings, paused.
    pub fn reset(self) {
        self.playing.set(false);
        self.history.set(Vec::new());
        self.steps_done.set(0);
        // the old model is not shown as if it were the new one (which the engine may refuse)
        self.probe.set(None);
        self.rate.set(None);
        self.error.set(None);
        self.scrubbed.set(None);
        self.gradient.set(None);
        let config_json = self.settings.with_untracked(LearnSettings::config_json);
        CLIENT.with_borrow_mut(|c| {
            c.run = Some(self);
            c.next_id += 1;
            c.run_id = c.next_id;
            c.slice = FIRST_SLICE;
            c.scrub = None;
            c.gradient = None;
            let id = c.next_id;
            c.in_flight = Some(id);
            c.post(TrainRequest::Start { id, config_json });
        });
        start_worker(self);
    }

    /// Plays: asks for slice after slice until paused or at the budget.
    pub fn play(self) {
        if self.steps_done.get_untracked() < self.settings.with_untracked(LearnSettings::budget)
            && self.error.with_untracked(Option::is_none)
        {
            self.playing.set(true);
            self.scrubbed.set(None);
            if !self.fast.get_untracked() {
                CLIENT.with_borrow_mut(|c| c.slice = WATCH_SLICE);
            }
            ask(None);
        }
    }

    /// Pauses: the slice in flight still arrives and is shown; no other is asked for.
    pub fn pause(self) {
        self.playing.set(false);
    }

    /// One step (when nothing is in flight).
    pub fn step(self) {
        self.playing.set(false);
        self.scrubbed.set(None);
        ask(Some(1));
    }

    /// Shows the model as it was at the latest checkpoint at or before `step` (pausing):
    /// asked for now if nothing is in flight, else when the answer in flight arrives.
    pub fn scrub(self, step: usize) {
        self.playing.set(false);
        CLIENT.with_borrow_mut(|c| c.scrub = Some(step));
        send_pending();
    }

    /// Asks for the gradient of the weight cell `name[i, j]` on the probe batch at the
    /// current parameters: now if nothing is in flight, else when the answer in flight arrives.
    pub fn explain_gradient(self, name: String, i: usize, j: usize) {
        CLIENT.with_borrow_mut(|c| c.gradient = Some((name, i, j)));
        send_pending();
    }

    /// The model shown: the checkpoint the learner stepped back to, else the model now.
    pub fn shown(self) -> Memo<Option<ProbeView>> {
        Memo::new(move |_| {
            self.scrubbed.with(|c| c.as_ref().map(|c| c.probe.clone())).or_else(|| self.probe.get())
        })
    }

    /// Back to the model now.
    pub fn unscrub(self) {
        CLIENT.with_borrow_mut(|c| c.scrub = None);
        self.scrubbed.set(None);
    }
}

/// The first slice, before the page has timed one.
const FIRST_SLICE: usize = 10;

#[derive(Default)]
struct Client {
    worker: Option<Worker>,
    ready: bool,
    /// Messages posted before the worker could take them.
    waiting: Vec<JsValue>,
    run: Option<LearnRun>,
    next_id: u64,
    /// The id of the newest run's start: answers to older ids are dropped.
    run_id: u64,
    in_flight: Option<u64>,
    /// When the request in flight left, page clock, ms.
    sent_at: f64,
    /// Steps in the next slice while playing.
    slice: usize,
    /// A checkpoint to ask for once nothing is in flight.
    scrub: Option<usize>,
    /// A gradient cell to ask for once nothing is in flight.
    gradient: Option<(String, usize, usize)>,
    /// The id of the gradient request in flight: its answer (even an error) is the cell's.
    gradient_id: Option<u64>,
}

impl Client {
    fn post(&mut self, request: TrainRequest) {
        self.sent_at = now();
        if let Some(run) = self.run {
            run.busy.try_set(true);
        }
        let msg = request.to_js();
        match (&self.worker, self.ready) {
            (Some(w), true) => {
                let _ = w.post_message(&msg);
            }
            _ => self.waiting.push(msg),
        }
    }
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client::default());
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Asks for `steps` (or, playing, the next slice) if nothing is in flight.
fn ask(steps: Option<usize>) {
    CLIENT.with_borrow_mut(|c| {
        if c.in_flight.is_some() || c.run.is_none() {
            return;
        }
        c.next_id += 1;
        let id = c.next_id;
        c.in_flight = Some(id);
        let steps = steps.unwrap_or(c.slice);
        c.post(TrainRequest::Steps { id, steps });
    });
}

/// Asks for the checkpoint the learner scrubbed to, else the gradient cell asked about,
/// if nothing is in flight.
fn send_pending() {
    CLIENT.with_borrow_mut(|c| {
        if c.in_flight.is_some() || c.run.is_none() {
            return;
        }
        let id = c.next_id + 1;
        let request = if let Some(step) = c.scrub.take() {
            TrainRequest::Checkpoint { id, step }
        } else if let Some((name, i, j)) = c.gradient.take() {
            c.gradient_id = Some(id);
            TrainRequest::Gradient { id, name, i, j }
        } else {
            return;
        };
        c.next_id = id;
        c.in_flight = Some(id);
        c.post(request);
    });
}

fn start_worker(run: LearnRun) {
    if CLIENT.with_borrow(|c| c.worker.is_some()) {
        return;
    }
    let on_error = |why: String| {
        let run = CLIENT.with_borrow_mut(|c| {
            c.in_flight = None;
            c.run
        });
        if let Some(run) = run {
            run.playing.try_set(false);
            run.error.try_set(Some(cannot_start(&why)));
        }
    };
    let worker = match workers::start(WORKER_URL, |data| on_message(&data), on_error) {
        Ok(w) => w,
        Err(e) => return run.error.set(Some(cannot_start(&e))),
    };
    CLIENT.with_borrow_mut(|c| c.worker = Some(worker));
}

fn cannot_start(why: &str) -> String {
    format!("The training worker could not start ({why}). Training runs only in a worker, off the page's thread, so it cannot run in this browser.")
}

fn on_message(msg: &JsValue) {
    if let Some(Reply::Ready) = Reply::from_js(msg) {
        CLIENT.with_borrow_mut(|c| {
            c.ready = true;
            if let Some(w) = &c.worker {
                for m in c.waiting.drain(..) {
                    let _ = w.post_message(&m);
                }
            }
        });
        return;
    }
    let Some(reply) = TrainReply::from_js(msg) else { return };
    let (TrainReply::Progress { id, .. }
    | TrainReply::Checkpoint { id, .. }
    | TrainReply::Gradient { id, .. }
    | TrainReply::Error { id, .. }) = &reply;
    let id = *id;
    let (run, current, elapsed, for_gradient) = CLIENT.with_borrow_mut(|c| {
        if c.in_flight == Some(id) {
            c.in_flight = None;
        }
        let for_gradient = c.gradient_id == Some(id);
        if for_gradient {
            c.gradient_id = None;
        }
        (c.run, id >= c.run_id, now() - c.sent_at, for_gradient)
    });
    send_pending();
    if let Some(run) = run {
        run.busy.try_set(CLIENT.with_borrow(|c| c.in_flight.is_some()));
    }
    let Some(run) = run.filter(|_| current) else { return };
    if for_gradient {
        let answer = match reply {
            TrainReply::Gradient { gradient_json, .. } => gradient_from_json(&gradient_json),
            TrainReply::Error { error, .. } => Err(error),
            _ => Err("the worker answered the gradient cell with something else".to_owned()),
        };
        run.gradient.try_set(Some(answer));
        return;
    }
    let progress = match reply {
        TrainReply::Progress { progress_json, .. } => progress_from_json(&progress_json),
        TrainReply::Checkpoint { checkpoint_json, .. } => {
            match checkpoint_from_json(&checkpoint_json) {
                Ok(c) => {
                    run.scrubbed.try_set(Some(c));
                }
                Err(e) => {
                    run.error.try_set(Some(e));
                }
            }
            return;
        }
        TrainReply::Error { error, .. } => Err(error),
        TrainReply::Gradient { .. } => return,
    };
    match progress {
        Ok(p) => {
            let playing = run.playing.try_get_untracked().unwrap_or(false);
            let budget = run.settings.with_untracked(LearnSettings::budget);
            let more = playing && p.steps_done < budget && p.stats.iter().all(|s| s.loss.is_finite());
            if more && run.fast.try_get_untracked().unwrap_or(false) {
                // the next slice first: the worker trains while the page draws this one
                resize_slice(p.stats.len(), elapsed);
                ask(None);
            } else if more {
                CLIENT.with_borrow_mut(|c| c.slice = WATCH_SLICE);
                let wait = (WATCH_MS - elapsed).max(0.0);
                set_timeout(
                    move || {
                        if run.playing.try_get_untracked().unwrap_or(false) {
                            ask(None)
                        }
                    },
                    std::time::Duration::from_secs_f64(wait / 1000.0),
                );
            }
            show(run, p, elapsed, more);
        }
        Err(e) => {
            run.playing.try_set(false);
            run.error.try_set(Some(e));
        }
    }
}

/// Sizes the next slice so that it takes about [`SLICE_MS`], from how long this one took.
fn resize_slice(steps: usize, elapsed_ms: f64) {
    if steps == 0 || elapsed_ms.is_nan() || elapsed_ms <= 0.0 {
        return;
    }
    CLIENT.with_borrow_mut(|c| {
        let wanted = (steps as f64 * SLICE_MS / elapsed_ms).round() as usize;
        // at most doubling at once, so one quick answer does not ask for a long slice
        c.slice = wanted.clamp(1, (2 * c.slice).clamp(1, MAX_SLICE));
    });
}

fn show(run: LearnRun, p: Progress, elapsed_ms: f64, more: bool) {
    let Progress { steps_done, stats, probe } = p;
    if !stats.is_empty() && elapsed_ms > 0.0 {
        run.rate.try_set(Some(stats.len() as f64 * 1000.0 / elapsed_ms));
    }
    if stats.iter().any(|s| !s.loss.is_finite()) {
        run.error.try_set(Some(
            "The loss is no longer a finite number: this learning rate is too large for the run. Lower it (the run starts again).".to_owned(),
        ));
    }
    if !more {
        run.playing.try_set(false);
    }
    run.history.try_update(|h| h.extend(stats));
    run.steps_done.try_set(steps_done);
    run.probe.try_set(Some(probe));
}
