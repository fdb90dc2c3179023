//! The root component: the signals, the one memo that runs the engine, the URL effect,
//! and the layout. Every part of the page is a component of its own (controls, import and
//! export, tokens, pipeline, tensors, lessons) that reads [`AppState`]. Nothing here
//! computes attention.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::{EngineError, Scenario, Trace};
use crate::lessons;

use super::controls::Controls;
use super::dom;
use super::heatmap_card::TablesOpen;
use super::lesson_panel::{EmbeddingEditor, EmbeddingPlot, LessonPanel, MaskConventions};
use super::pipeline::Pipeline;
use super::state::{self, Settings, ViewState};
use super::tensors::TensorView;
use super::tokens::{BatchTabs, Overview};

/// The engine's answer for the current inputs.
#[derive(Debug, Clone)]
pub struct Run {
    /// The scenario the inputs describe.
    pub scenario: Scenario,
    /// What was cut to the page's limits.
    pub notices: Vec<String>,
    /// The trace, or why there is none.
    pub result: Result<Arc<Trace>, EngineError>,
}

/// Two runs are the same when their inputs are: the engine is a pure function of the
/// scenario, so comparing the traces number by number (what a derived `PartialEq` would
/// do on every edit) could only repeat that.
impl PartialEq for Run {
    fn eq(&self, other: &Self) -> bool {
        self.scenario == other.scenario && self.notices == other.notices
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
    /// The open lesson and step, if any.
    pub lesson: RwSignal<Option<(usize, usize)>>,
    /// The engine's answer for the current inputs.
    pub run: Memo<Run>,
    /// The last trace that ran without error (stays on screen under an error).
    pub shown: Memo<Option<Arc<Trace>>>,
    /// The window's width, CSS pixels.
    pub viewport: RwSignal<f64>,
}

impl AppState {
    /// The engine's error for the current inputs, if any.
    pub fn error(&self) -> Signal<Option<EngineError>> {
        let run = self.run;
        Signal::derive(move || run.with(|r| r.result.clone().err()))
    }
}

/// An error message for one control, shown only when the engine's error is about it.
#[component]
pub fn FieldError(#[prop(into)] error: Signal<Option<EngineError>>, field: &'static str) -> impl IntoView {
    move || {
        error.get().filter(|e| e.field() == field).map(|e| {
            view! { <p class="al-error" data-testid="error" role="alert">{e.to_string()}</p> }
        })
    }
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let all_lessons = Arc::new(lessons::lessons());
    let (pairs, lesson_pairs): (Vec<_>, Vec<_>) =
        dom::query_pairs().into_iter().partition(|(k, _)| k != "lesson" && k != "ls");
    let (text0, settings0, view0, mut url_notices) = state::from_query(&pairs);
    let text = RwSignal::new(text0);
    let settings = RwSignal::new(settings0);
    let view_state = RwSignal::new(view0);
    let import_error = RwSignal::new(None::<String>);
    let lesson = RwSignal::new(None::<(usize, usize)>);
    provide_context(TablesOpen(RwSignal::new(false)));

    // Entering a lesson step sets the explorer's inputs to that step's scenario; the
    // learner can then edit them, and the lesson's words follow the live trace.
    let go_to_lesson = {
        let all_lessons = all_lessons.clone();
        move |(l, s): (usize, usize)| {
            let Some(ls) = all_lessons.get(l).and_then(|x| x.steps.get(s)) else { return };
            let (t, st) = state::from_scenario(&ls.scenario);
            settings.set(st);
            text.set(t);
            view_state.update(|v| {
                v.step = ls.focus;
                v.batch = ls.batch;
            });
            lesson.set(Some((l, s)));
        }
    };
    if let Some(id) = lesson_pairs.iter().find(|(k, _)| k == "lesson").map(|(_, v)| v.clone()) {
        let n = lesson_pairs
            .iter()
            .find(|(k, _)| k == "ls")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        match all_lessons.iter().position(|l| l.id == id) {
            Some(l) => {
                let last = all_lessons.get(l).map_or(0, |x| x.steps.len().saturating_sub(1));
                go_to_lesson((l, n.min(last)));
            }
            None => url_notices.push(format!(
                "The link's lesson \"{}\" does not exist; showing the explorer.",
                id.chars().take(40).collect::<String>()
            )),
        }
    }
    let on_go = Callback::new(go_to_lesson.clone());
    let on_exit = Callback::new(move |()| lesson.set(None));

    // The one place the engine runs.
    let run = Memo::new(move |_| {
        dom::mark("al-engine-start");
        let (scenario, notices) = state::scenario(&text.get(), &settings.get());
        let result = state::run(&scenario).map(Arc::new);
        dom::mark("al-engine-end");
        Run { scenario, notices, result }
    });
    // The last trace that ran without error stays on screen, marked stale, under an error.
    // (It changes when it holds another trace: comparing the pointers is enough.)
    let shown = Memo::new_with_compare(
        move |prev: Option<&Option<Arc<Trace>>>| match &run.get().result {
            Ok(t) => Some(t.clone()),
            Err(_) => prev.cloned().flatten(),
        },
        |a, b| match (a.cloned().flatten(), b.cloned().flatten()) {
            (Some(a), Some(b)) => !Arc::ptr_eq(&a, &b),
            (a, b) => a.is_some() != b.is_some(),
        },
    );
    // The heatmaps are laid out for the window's width, again whenever it changes.
    let viewport = RwSignal::new(dom::viewport_width());
    let resize = window_event_listener(leptos::ev::resize, move |_| viewport.set(dom::viewport_width()));
    on_cleanup(move || resize.remove());

    let state = AppState { text, settings, view: view_state, import_error, lesson, run, shown, viewport };
    let error = state.error();
    let stale = move || error.get().is_some() && shown.get().is_some();

    // Live state goes into the URL (replacing, not pushing, history entries).
    {
        let all_lessons = all_lessons.clone();
        Effect::new(move |_| {
            let mut q = state::to_query(&text.get(), &settings.get(), &view_state.get());
            if let Some((l, s)) = lesson.get() {
                if let Some(found) = all_lessons.get(l) {
                    q.push(("lesson", found.id.to_string()));
                    q.push(("ls", s.to_string()));
                }
            }
            dom::replace_query(&q);
        });
    }

    view! {
        <div class="al-app" class:al-stale=stale>
            <header class="al-header">
                <h1>"Attention Lens"</h1>
                <p class="al-tagline">
                    "Multi-head scaled dot-product attention, "
                    <code>"softmax(QKᵀ/√d_k + mask)V"</code>
                    ", computed exactly in your browser, step by step."
                </p>
                <nav class="al-modes" aria-label="Mode">
                    <button type="button" class="al-tab" class:al-selected=move || lesson.get().is_none()
                        data-testid="mode-explorer" on:click=move |_| lesson.set(None)>"Explorer"</button>
                    <button type="button" class="al-tab" class:al-selected=move || lesson.get().is_some()
                        data-testid="mode-lessons" on:click={let go = go_to_lesson.clone(); move |_| if lesson.get_untracked().is_none() { go((0, 0)) }}>"Lessons"</button>
                </nav>
            </header>
            {
                let all_lessons = all_lessons.clone();
                move || lesson.get().and_then(|(l, _)| Some((l, all_lessons.get(l)?.id))).map(|(l, id)| {
                    let position = Signal::derive(move || lesson.get().unwrap_or((l, 0)));
                    let batch = Signal::derive(move || view_state.with(|v| v.batch));
                    view! {
                        <LessonPanel lessons=all_lessons.clone() position=position trace=Signal::derive(move || shown.get()) on_go=on_go on_exit=on_exit />
                        {(id == "baseball-bat").then(|| view! {
                            <div class="al-lesson-extras">
                                <EmbeddingEditor settings=settings />
                                <EmbeddingPlot trace=Signal::derive(move || shown.get()) settings=settings />
                            </div>
                        })}
                        {(id == "masks").then(|| view! { <MaskConventions trace=Signal::derive(move || shown.get()) batch=batch /> })}
                    }
                })
            }

            <Controls state=state />

            <div class="al-notices" aria-live="polite">
                {url_notices.into_iter().map(|n| view! { <p class="al-notice" data-testid="notice">{n}</p> }).collect_view()}
                {move || run.with(|r| r.notices.iter().map(|n| view! { <p class="al-notice" data-testid="notice">{n.clone()}</p> }).collect_view())}
                {move || stale().then(|| view! {
                    <p class="al-notice al-stale-note" data-testid="stale">"The pictures below are from the last valid input; fix the error above to update them."</p>
                })}
                {move || error.get().filter(|e| e.field() == "scenario" || e.field() == "embeddings").map(|e| view! { <p class="al-error" data-testid="error" role="alert">{e.to_string()}</p> })}
            </div>

            <Overview state=state />

            <main class="al-main">
                <nav class="al-side" aria-label="Pipeline">
                    <h2>"Pipeline"</h2>
                    <Pipeline
                        trace=Signal::derive(move || shown.get())
                        selected=Signal::derive(move || view_state.with(|v| v.step))
                        on_select=Callback::new(move |name| view_state.update(|v| v.step = name))
                    />
                </nav>
                <section class="al-tensors" aria-label="Selected step">
                    <div class="al-tabs"><BatchTabs state=state /></div>
                    <TensorView state=state />
                </section>
            </main>
            <div data-testid="app-ready" hidden=true></div>
        </div>
    }
}
