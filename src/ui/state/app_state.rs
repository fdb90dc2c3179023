//! The page's shared state, below the components that read it: [`AppState`] (the
//! signals, copied into each component) and [`Run`] (the engine's answer for the current
//! inputs). [`crate::ui::App`] makes them; the components import them from here, so no
//! component imports the root that imports it.

use std::sync::Arc;

use leptos::prelude::*;

use attention_worker::RunError;

use crate::engine::{Scenario, Trace};

use crate::ui::state::settings::{Settings, ViewState};

/// The engine's answer for the current inputs.
#[derive(Debug, Clone)]
pub struct Run {
    /// The scenario the inputs describe.
    pub scenario: Scenario,
    /// What was cut to the page's limits.
    pub notices: Vec<String>,
    /// The trace, or why there is none. While `computing`, the previous run's.
    pub result: Result<Arc<Trace>, RunError>,
    /// True while the engine worker computes this scenario (the page shows the last
    /// picture, marked as computing).
    pub computing: bool,
}

/// Two runs are the same when their inputs and their state are: the engine is a pure
/// function of the scenario, so comparing the traces number by number (what a derived
/// `PartialEq` would do on every edit) could only repeat that; the trace's pointer tells
/// a worker's answer from the picture kept while it computed.
impl PartialEq for Run {
    fn eq(&self, other: &Self) -> bool {
        let same_result = match (&self.result, &other.result) {
            (Ok(a), Ok(b)) => Arc::ptr_eq(a, b),
            (Err(a), Err(b)) => a == b,
            _ => false,
        };
        self.scenario == other.scenario
            && self.notices == other.notices
            && self.computing == other.computing
            && same_result
    }
}

/// The page's state, shared by its components: plain signals, copied into each.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The sentences, one per line.
    pub text: RwSignal<String>,
    /// Everything the controls set.
    pub settings: RwSignal<Settings>,
    /// What is selected.
    pub view: RwSignal<ViewState>,
    /// The last import's error.
    pub import_error: RwSignal<Option<String>>,
    /// The control whose text does not parse, and what to say about it: the settings keep
    /// its last valid value, so the pictures are stale until it parses again.
    pub typing_error: RwSignal<Option<(&'static str, String)>>,
    /// The open lesson and step, if any.
    pub lesson: RwSignal<Option<(usize, usize)>>,
    /// The engine's answer for the current inputs.
    pub run: Memo<Run>,
    /// The last trace that ran without error (stays on screen under an error).
    pub shown: Memo<Option<Arc<Trace>>>,
    /// The window's width, CSS pixels.
    pub viewport: RwSignal<f64>,
    /// The window's height, CSS pixels.
    pub viewport_height: RwSignal<f64>,
}

impl AppState {
    /// The engine's error for the current inputs, if any.
    pub fn error(&self) -> Signal<Option<RunError>> {
        let run = self.run;
        Signal::derive(move || run.with(|r| r.result.clone().err()))
    }

    /// True while the pictures on screen are not those of the current inputs: the engine
    /// refused them, or a control's text does not parse.
    pub fn stale(&self) -> Signal<bool> {
        let (error, typing_error, shown) = (self.error(), self.typing_error, self.shown);
        Signal::derive(move || {
            (error.with(Option::is_some) || typing_error.with(Option::is_some)) && shown.with(Option::is_some)
        })
    }
}
