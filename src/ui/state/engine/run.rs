//! The one place the engine runs: [`engine_run`], the memo that runs it on the page or,
//! for large inputs, hands the run to the engine worker ([`crate::ui::state::engine::worker`]), whose
//! answer comes back through a [`Channel`]; [`send_to_worker`], the effect that posts the
//! request; [`last_good_trace`], the trace kept on screen under an error. While the worker
//! computes, the last picture stays, marked as computing. Nothing here computes
//! attention itself: [`choice::run_reusing`] does.

use std::sync::Arc;

use attention_worker::RunError;
use leptos::prelude::*;

use crate::engine::Trace;

use crate::ui::platform::timing;
use crate::ui::state::app_state::Run;
use crate::ui::state::engine::choice::{self, EngineMode};
use crate::ui::state::engine::worker::{self, Channel};
use crate::ui::state::settings::{self, Settings};

/// The engine's answer for the page's text and settings: here, or for large inputs in the
/// engine worker (`engine_mode` says which).
pub fn engine_run(
    text: RwSignal<String>,
    settings: RwSignal<Settings>,
    engine_mode: EngineMode,
    channel: Channel,
) -> Memo<Run> {
    Memo::new(move |prev: Option<&Run>| {
        // borrowed, not cloned: the settings may hold imported embeddings and weights
        let (scenario, notices) = text.with(|t| settings.with(|s| settings::scenario(t, s)));
        // the scenario of the trace on screen, which the engine would reuse from
        let last_run = prev.filter(|p| !p.computing && p.result.is_ok()).map(|p| &p.scenario);
        let off_thread = !channel.failed.get() && engine_mode.runs_in_worker(&scenario, last_run);
        if let Some(p) = prev.filter(|p| p.scenario == scenario && !p.computing) {
            let result = p.result.clone();
            return Run { scenario, notices, result, computing: false };
        }
        if off_thread {
            let answered = channel
                .answer
                .with(|a| a.as_ref().filter(|a| a.scenario == scenario).map(|a| a.result.clone()));
            match (answered, prev) {
                (Some(result), _) => return Run { scenario, notices, result, computing: false },
                // the first picture is computed here at once (the worker is not started yet)
                (None, Some(p)) => {
                    return Run { scenario, notices, result: p.result.clone(), computing: true }
                }
                (None, None) => {}
            }
        }
        timing::mark("al-engine-start");
        // the sentences that did not change are not projected again
        let previous = prev.and_then(|p| p.result.as_deref().ok());
        timing::mark("al-page-run"); // the page's own engine run (the tests count them)
        let result = choice::run_reusing(&scenario, previous).map(Arc::new).map_err(RunError::from);
        timing::mark("al-engine-end");
        Run { scenario, notices, result, computing: false }
    })
}

/// A run marked as computing is a request to the worker (pushed out of the reactive
/// system here; its answer comes back in `channel.answer`). A large first picture is
/// computed on the page; the worker then starts loading for the next.
pub fn send_to_worker(run: Memo<Run>, engine_mode: EngineMode, channel: Channel) {
    Effect::new(move |_| {
        run.with(|r| {
            if r.computing {
                worker::request(&r.scenario, channel);
            } else if engine_mode.readies_worker(&r.scenario) {
                worker::warm(&r.scenario);
                worker::start(channel);
                // room in memory for the next answer while this picture is shown
                if let Ok(trace) = &r.result {
                    worker::make_room(worker::trace_bytes(trace));
                }
            }
        })
    });
}

/// The last trace that ran without error: it stays on screen, marked stale, under an
/// error. (It changes when it holds another trace: comparing the pointers is enough.)
pub fn last_good_trace(run: Memo<Run>) -> Memo<Option<Arc<Trace>>> {
    Memo::new_with_compare(
        move |prev: Option<&Option<Arc<Trace>>>| {
            run.with(|r| match &r.result {
                Ok(t) => Some(t.clone()),
                Err(_) => prev.cloned().flatten(),
            })
        },
        |a, b| match (a.cloned().flatten(), b.cloned().flatten()) {
            (Some(a), Some(b)) => !Arc::ptr_eq(&a, &b),
            (a, b) => a.is_some() != b.is_some(),
        },
    )
}
