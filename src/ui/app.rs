//! The root component: the signals, the one memo that runs the engine, the URL effect,
//! and the layout. Every part of the page is a component of its own (controls, import and
//! export, tokens, pipeline, tensors, lessons) that reads [`AppState`]. Nothing here
//! computes attention.

use std::sync::Arc;

use attention_worker::RunError;
use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::Trace;
use crate::lessons;

use super::app_state::{AppState, Run};
use super::causal_corners::CausalCorners;
use super::challenge_panel::ChallengeMode;
use super::controls::Controls;
use super::decode_view::DecodeView;
use super::dom;
use super::embedding_editor::EmbeddingEditor;
use super::embedding_plot::EmbeddingPlot;
use super::engine_choice::{self, EngineMode};
use super::engine_worker;
use super::explained::Explained;
use super::highlight::Highlights;
use super::lesson_panel::LessonPanel;
use super::mask_conventions::MaskConventions;
use super::matrix_table::TablesOpen;
use super::pipeline::Pipeline;
use super::position_similarity::PositionSimilarity;
use super::settings;
use super::tensors::{EmbedView, TensorView};
use super::tiles_view::TilesView;
use super::tokens::{BatchTabs, Overview};
use super::url;

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let all_lessons = Arc::new(lessons::lessons());
    // The lesson and the display modes are read here; the rest is the explorer's state.
    let (page, pairs) = url::PageParams::split(dom::query_pairs());
    // presenter mode: one lesson step per screen; embed mode: only the selected figure
    let present = RwSignal::new(page.present);
    let embed = page.embed;
    let engine_mode = page.engine;
    let (mut text0, mut settings0, view0, mut url_notices) = url::from_query(&pairs);
    // A whole scenario in the fragment (imported numbers) replaces what the query says.
    match url::from_fragment(&dom::fragment()) {
        Some(Ok((t, s))) => (text0, settings0) = (t, s),
        Some(Err(e)) => url_notices.push(format!("{e}; the link's other settings are shown instead.")),
        None => {}
    }
    let text = RwSignal::new(text0);
    let settings = RwSignal::new(settings0);
    let view_state = RwSignal::new(view0);
    let import_error = RwSignal::new(None::<String>);
    // Why the address bar cannot hold this scenario (too large for a link), if it cannot.
    let link_problem = RwSignal::new(None::<String>);
    let lesson = RwSignal::new(None::<(usize, usize)>);
    // Challenges mode (src/ui/challenge_panel.rs): the open challenge's id, and a challenge
    // imported as JSON or carried whole by a `#c=` link.
    let challenge = RwSignal::new(page.challenge.clone());
    let imported = RwSignal::new(None::<crate::challenges::Challenge>);
    match crate::challenges::from_link_fragment(&dom::fragment()) {
        Some(Ok(c)) => {
            challenge.set(Some(c.id.clone()));
            imported.set(Some(c));
        }
        Some(Err(e)) => url_notices.push(e),
        None => {}
    }
    provide_context(TablesOpen(RwSignal::new(false)));
    let first_lesson_title = all_lessons.first().map_or("", |l| l.title);

    // Entering a lesson step sets the explorer's inputs to that step's scenario; the
    // learner can then edit them, and the lesson's words follow the live trace.
    // Opens step s of lesson l. Within a lesson, the learner's edits to its vectors go along
    // (Back and Next keep them); `fresh` drops them ("Reset this lesson").
    let open_step = {
        let all_lessons = all_lessons.clone();
        move |(l, s): (usize, usize), fresh: bool| {
            let Some(ls) = all_lessons.get(l).and_then(|x| x.steps.get(s)) else { return };
            let edits = lesson
                .get_untracked()
                .filter(|(now, _)| *now == l && !fresh)
                .and_then(|(_, now)| all_lessons.get(l)?.steps.get(now))
                .map(|now| {
                    settings.with_untracked(|st| lessons::edited_vectors(&now.scenario, &st.embeddings))
                })
                .unwrap_or_default();
            let (t, st) = settings::from_scenario(&lessons::carry_edits(&ls.scenario, &edits));
            settings.set(st);
            text.set(t);
            view_state.update(|v| {
                v.step = ls.focus;
                v.batch = ls.batch;
            });
            lesson.set(Some((l, s)));
        }
    };
    let go_to_lesson = {
        let open_step = open_step.clone();
        move |at: (usize, usize)| open_step(at, false)
    };
    // True while the open step's vectors differ from the lesson's own: "Reset this lesson".
    let edited = {
        let all_lessons = all_lessons.clone();
        Memo::new(move |_| {
            let Some((l, s)) = lesson.get() else { return false };
            let Some(step) = all_lessons.get(l).and_then(|x| x.steps.get(s)) else { return false };
            settings.with(|st| !lessons::edited_vectors(&step.scenario, &st.embeddings).is_empty())
        })
    };
    let on_reset = Callback::new(move |()| {
        if let Some(at) = lesson.get_untracked() {
            open_step(at, true)
        }
    });
    if let Some((id, n)) = page.lesson {
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
    if present.get_untracked() && lesson.get_untracked().is_none() {
        go_to_lesson((0, 0));
    }
    let on_go = Callback::new(go_to_lesson.clone());
    let on_exit = Callback::new(move |()| lesson.set(None));

    // The one place the engine runs: here, or for large inputs in the engine worker
    // (engine_worker.rs), whose answer comes back through `channel`. While it computes,
    // the last picture stays, marked as computing.
    let channel = engine_worker::Channel::new();
    let run = Memo::new(move |prev: Option<&Run>| {
        // borrowed, not cloned: the settings may hold imported embeddings and weights
        let (scenario, notices) = text.with(|t| settings.with(|s| settings::scenario(t, s)));
        // the scenario of the trace on screen, which the engine would reuse from
        let last_run = prev.filter(|p| !p.computing && p.result.is_ok()).map(|p| &p.scenario);
        let off_thread = !channel.failed.get()
            && match engine_mode {
                EngineMode::Sync => false,
                EngineMode::Worker => engine_choice::check_page_limits(&scenario).is_ok(),
                EngineMode::Auto => engine_choice::belongs_in_worker(&scenario, last_run),
            };
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
        dom::mark("al-engine-start");
        // the sentences that did not change are not projected again
        let previous = prev.and_then(|p| p.result.as_deref().ok());
        dom::mark("al-page-run"); // the page's own engine run (the tests count them)
        let result = engine_choice::run_reusing(&scenario, previous).map(Arc::new).map_err(RunError::from);
        dom::mark("al-engine-end");
        Run { scenario, notices, result, computing: false }
    });
    // A run marked as computing is a request to the worker (pushed out of the reactive
    // system here; its answer comes back in `channel.answer`).
    // A large first picture is computed here; the worker then starts loading for the next.
    Effect::new(move |_| {
        run.with(|r| {
            if r.computing {
                engine_worker::request(&r.scenario, channel);
            } else if match engine_mode {
                EngineMode::Sync => false,
                EngineMode::Worker => true,
                // a page whose whole run is large: the worker gets ready for the runs
                // that are (a new seed, h, d_model; typing is mostly done here)
                EngineMode::Auto => engine_choice::belongs_in_worker(&r.scenario, None),
            } {
                engine_worker::warm(&r.scenario);
                engine_worker::start(channel);
                // room in memory for the next answer while this picture is shown
                if let Ok(trace) = &r.result {
                    engine_worker::make_room(engine_worker::trace_bytes(trace));
                }
            }
        })
    });
    let computing = Memo::new(move |_| run.with(|r| r.computing));
    // The last trace that ran without error stays on screen, marked stale, under an error.
    // (It changes when it holds another trace: comparing the pointers is enough.)
    let shown = Memo::new_with_compare(
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
    );
    // One explanation panel per page: the explained cell and its explanation.
    provide_context(Explained::new(shown));
    // The heatmaps are laid out for the window's width, again whenever it changes.
    let viewport = RwSignal::new(dom::viewport_width());
    let viewport_height = RwSignal::new(dom::viewport_height());
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        viewport.set(dom::viewport_width());
        viewport_height.set(dom::viewport_height());
    });
    on_cleanup(move || resize.remove());

    let state = AppState {
        text,
        settings,
        view: view_state,
        import_error,
        lesson,
        run,
        shown,
        viewport,
        viewport_height,
    };
    // The open lesson step's highlighted cells, from the live trace.
    {
        let all_lessons = all_lessons.clone();
        let cells = Signal::derive(move || {
            let Some((l, s)) = lesson.get() else { return Vec::new() };
            let Some(step) = all_lessons.get(l).and_then(|x| x.steps.get(s)) else { return Vec::new() };
            shown.with(|t| t.as_ref().map(|t| (step.highlight)(t)).unwrap_or_default())
        });
        provide_context(Highlights(cells));
    }
    // The first screen's caption: what to look at in the weights, from the live trace.
    let caption = move || {
        if lesson.get().is_some() {
            return None;
        }
        let (step, batch) = view_state.with(|v| (v.step, v.batch));
        if step != crate::engine::StepName::Weights {
            return None;
        }
        shown.with(|t| {
            t.as_ref().and_then(|t| lessons::first_screen::caption(t, batch.min(t.sizes.b.saturating_sub(1))))
        })
    };
    let error = state.error();
    let stale = move || error.get().is_some() && shown.get().is_some();
    let computing_note = move || {
        computing.get().then(|| {
            view! {
                <p class="al-notice al-computing" data-testid="computing">
                    <span class="al-spinner" aria-hidden="true"></span>
                    "Computing the new pictures… the ones below are from the previous input."
                </p>
            }
        })
    };

    // Live state goes into the URL (replacing, not pushing, history entries).
    {
        let all_lessons = all_lessons.clone();
        Effect::new(move |_| {
            let mut q = text.with(|t| settings.with(|s| view_state.with(|v| url::to_query(t, s, v))));
            let open =
                lesson.get().and_then(|(l, s)| all_lessons.get(l).map(|found| (found.id.to_string(), s)));
            url::PageParams {
                lesson: open,
                present: present.get(),
                embed,
                engine: engine_mode,
                challenge: challenge.get(),
            }
            .push_to(&mut q);
            let fragment = match imported.get().filter(|c| challenge.get().as_deref() == Some(c.id.as_str()))
            {
                Some(c) => Ok(crate::challenges::link_fragment(&c)),
                None => text.with(|t| settings.with(|s| url::fragment(t, s))),
            };
            link_problem.set(fragment.as_ref().err().map(ToString::to_string));
            dom::replace_query(&q, fragment.as_deref().unwrap_or(""));
        });
    }

    if embed {
        return view! {
            <div class="al-app al-embed" class:al-stale=stale class:al-computing=move || computing.get()>
                {computing_note}
                <EmbedView state=state />
                <div data-testid="app-ready" hidden=true></div>
            </div>
        }
        .into_any();
    }

    view! {
        <div
            class="al-app"
            class:al-stale=stale
            class:al-computing=move || computing.get()
            class:al-present=move || present.get()
        >
            <header class="al-header" hidden=move || present.get()>
                <h1>"Attention Lens"</h1>
                <p class="al-tagline">
                    "Multi-head scaled dot-product attention, " <code>"softmax(QKᵀ/√d_k + mask)V"</code>
                    ", computed exactly in your browser, step by step."
                </p>
                <nav class="al-modes" aria-label="Mode">
                    <button
                        type="button"
                        class="al-tab"
                        class:al-selected=move || lesson.get().is_none() && challenge.get().is_none()
                        data-testid="mode-explorer"
                        on:click=move |_| {
                            lesson.set(None);
                            challenge.set(None)
                        }
                    >
                        "Explorer"
                    </button>
                    <button
                        type="button"
                        class="al-tab"
                        class:al-selected=move || lesson.get().is_some() && challenge.get().is_none()
                        data-testid="mode-lessons"
                        on:click={
                            let go = go_to_lesson.clone();
                            move |_| {
                                challenge.set(None);
                                if lesson.get_untracked().is_none() {
                                    go((0, 0))
                                }
                            }
                        }
                    >
                        "Lessons"
                    </button>
                    <button
                        type="button"
                        class="al-tab"
                        class:al-selected=move || challenge.get().is_some()
                        data-testid="mode-challenges"
                        on:click=move |_| {
                            if challenge.get_untracked().is_none() {
                                challenge.set(Some(String::new()))
                            }
                        }
                    >
                        "Challenges"
                    </button>
                </nav>
            </header>
            {
                let all_lessons = all_lessons.clone();
                move || {
                    lesson
                        .get()
                        .filter(|_| challenge.get().is_none())
                        .and_then(|(l, _)| {
                            let steps_extras: Vec<lessons::Extra> = all_lessons
                                .get(l)?
                                .steps
                                .iter()
                                .map(|s| s.extra)
                                .collect();
                            let extra = Memo::new(move |_| {
                                lesson
                                    .get()
                                    .and_then(|(_, s)| steps_extras.get(s).copied())
                                    .unwrap_or_default()
                            });
                            let position = Signal::derive(move || lesson.get().unwrap_or((l, 0)));
                            let batch = Signal::derive(move || view_state.with(|v| v.batch));
                            let trace = Signal::derive(move || shown.get());
                            let extras = move || match extra.get() {
                                lessons::Extra::EmbeddingPlot => {
                                    // what the current step's picture shows beside the focus step: the step says
                                    view! { <EmbeddingEditor settings=settings /> }
                                        .into_any()
                                }
                                lessons::Extra::MaskConventions => {
                                    view! { <MaskConventions trace=trace batch=batch /> }.into_any()
                                }
                                lessons::Extra::None
                                | lessons::Extra::PositionSimilarity
                                | lessons::Extra::Decode { .. }
                                | lessons::Extra::Tiles { .. }
                                | lessons::Extra::CausalCorners => ().into_any(),
                            };
                            let column = Signal::derive(move || {
                                let w = viewport.get();
                                if w <= 900.0 {
                                    w - 70.0
                                } else if present.get() {
                                    (w - 96.0) / 1.8
                                } else {
                                    (w.min(1400.0) - 90.0) * 1.25 / 2.25
                                }
                            });
                            let max_height = Signal::derive(move || {
                                let h = viewport_height.get();
                                let above = if present.get() { 140.0 } else { 300.0 };
                                (viewport.get() > 900.0).then(|| (h - above).max(160.0))
                            });
                            let heatmaps = move || {
                                // the picture the words talk about, as large as the column allows
                                // the stage's grid: 1fr : 1.25fr inside the lesson box, 0.8fr : 1fr when presenting
                                // ... and short enough that words and picture share the first screen
                                // (the page header, the lesson tabs and the card's title sit above it)
                                view! {
                                    <div class="al-tabs">
                                        <BatchTabs state=state />
                                    </div>
                                    <TensorView
                                        state=state
                                        column=column
                                        compact=true
                                        max_height=max_height
                                    />
                                    {move || match extra.get() {
                                        lessons::Extra::EmbeddingPlot => {
                                            view! { <EmbeddingPlot trace=trace settings=settings /> }
                                                .into_any()
                                        }
                                        lessons::Extra::CausalCorners => {
                                            view! { <CausalCorners trace=trace /> }.into_any()
                                        }
                                        _ => ().into_any(),
                                    }}
                                }
                            };
                            let kind = Memo::new(move |_| {
                                Some(extra.get()).filter(|e| e.replaces_heatmaps()).unwrap_or_default()
                            });
                            let picture = move || match kind.get() {
                                lessons::Extra::PositionSimilarity => {
                                    // the decode and tiles views and the similarity table replace the
                                    // heatmaps; the other extras sit under them (a memo, so the heatmaps
                                    // stay while only those change)
                                    view! { <PositionSimilarity trace=trace /> }
                                        .into_any()
                                }
                                lessons::Extra::Decode { t } => {
                                    view! { <DecodeView state=state start=t in_lesson=true /> }.into_any()
                                }
                                lessons::Extra::Tiles { block, tile } => {
                                    view! {
                                        <TilesView
                                            state=state
                                            column=column
                                            start=(block, tile)
                                            in_lesson=true
                                        />
                                    }
                                        .into_any()
                                }
                                _ => heatmaps().into_any(),
                            };
                            Some(
                                view! {
                                    <LessonPanel
                                        lessons=all_lessons.clone()
                                        position=position
                                        trace=trace
                                        on_go=on_go
                                        on_exit=on_exit
                                        edited=edited
                                        on_reset=on_reset
                                        present=present
                                        extras=extras
                                        picture=picture
                                    />
                                },
                            )
                        })
                }
            }

            {
                let in_challenges = Memo::new(move |_| challenge.get().is_some());
                move || {
                    in_challenges
                        .get()
                        .then(|| {
                            // one ChallengeMode while in the mode (switching challenges does not rebuild it)
                            view! { <ChallengeMode open=challenge imported=imported /> }
                        })
                }
            }
            {move || {
                (lesson.get().is_none() && challenge.get().is_none())
                    .then(|| {
                        view! {
                            <div class="al-story">
                                {move || {
                                    caption()
                                        .map(|c| {
                                            view! {
                                                <p
                                                    class="al-caption"
                                                    data-testid="caption"
                                                    aria-live="polite"
                                                >
                                                    {c}
                                                </p>
                                            }
                                        })
                                }}
                                <button
                                    type="button"
                                    class="al-start"
                                    data-testid="start-lesson"
                                    on:click={
                                        let go = go_to_lesson.clone();
                                        move |_| go((0, 0))
                                    }
                                >
                                    {format!("Start the lesson: {first_lesson_title}")}
                                </button>
                            </div>
                        }
                    })
            }}

            <div class="al-notices" aria-live="polite">
                {url_notices
                    .iter()
                    .cloned()
                    .map(|n| {
                        view! {
                            <p class="al-notice" data-testid="notice">
                                {n}
                            </p>
                        }
                    })
                    .collect_view()}
                {move || {
                    run.with(|r| {
                        r.notices
                            .iter()
                            .map(|n| {
                                view! {
                                    <p class="al-notice" data-testid="notice">
                                        {n.clone()}
                                    </p>
                                }
                            })
                            .collect_view()
                    })
                }}
                {move || {
                    link_problem
                        .get()
                        .map(|p| {
                            view! {
                                <p class="al-notice" data-testid="link-too-large">
                                    {p}
                                </p>
                            }
                        })
                }}
                {computing_note}
                {move || {
                    stale()
                        .then(|| {
                            view! {
                                <p class="al-notice al-stale-note" data-testid="stale">
                                    "The pictures below are from the last valid input; fix the error above to update them."
                                </p>
                            }
                        })
                }}
                {move || {
                    error
                        .get()
                        .filter(|e| matches!(e.field(), Field::Scenario | Field::Embeddings))
                        .map(|e| {
                            view! {
                                <p class="al-error" data-testid="error" role="alert">
                                    {e.to_string()}
                                </p>
                            }
                        })
                }}
            </div>

            {move || {
                (!present.get() && challenge.get().is_none())
                    .then(|| {
                        let in_lesson = lesson.get().is_some();
                        let controls = if in_lesson {
                            view! {
                                <details class="al-fold" data-testid="change-numbers">
                                    <summary>"Change the numbers"</summary>
                                    <Controls state=state />
                                    <Overview state=state />
                                </details>
                            }
                                .into_any()
                        } else {
                            view! { <Controls state=state /> }.into_any()
                        };
                        let pipeline = move || {
                            // the list of steps; selecting one shows its tensors
                            view! {
                                <Pipeline
                                    trace=Signal::derive(move || shown.get())
                                    selected=Signal::derive(move || view_state.with(|v| v.step))
                                    on_select=Callback::new(move |name| {
                                        view_state
                                            .update(|v| {
                                                v.step = name;
                                                v.mode = settings::ViewMode::Cards;
                                            });
                                        dom::scroll_into_view_if_above(".al-tensors");
                                    })
                                />
                            }
                        };
                        let column = Signal::derive(move || {
                            let w = viewport.get().min(1400.0);
                            if w > 900.0 { w - 400.0 } else { w - 40.0 }
                        });
                        let main = if in_lesson {
                            // a step chosen in the pipeline is shown, out of the decode or tiles view
                            // the picture of the step is beside the list: bring it into view
                            // when the list was scrolled past it (a phone, a long pipeline)
                            view! {
                                <details class="al-fold" data-testid="pipeline-fold">
                                    <summary>
                                        "The pipeline: every step, its shape and its PyTorch line"
                                    </summary>
                                    {pipeline()}
                                </details>
                            }
                                .into_any()
                        } else {
                            view! {
                                <Overview state=state />
                                <main class="al-main">
                                    <nav class="al-side" aria-label="Pipeline">
                                        <h2>"Pipeline"</h2>
                                        {pipeline()}
                                    </nav>
                                    <section class="al-tensors" aria-label="Selected step">
                                        <div class="al-tabs">
                                            <BatchTabs state=state />
                                        </div>
                                        <TensorView
                                            state=state
                                            column=column
                                            compact=false
                                            max_height=Signal::derive(|| None)
                                        />
                                    </section>
                                </main>
                            }
                                .into_any()
                        };
                        view! {
                            {controls}
                            {main}
                        }
                    })
            }}
            <div data-testid="app-ready" hidden=true></div>
        </div>
    }
    .into_any()
}
