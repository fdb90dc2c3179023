//! The lessons mode: the guided text above the explorer, Back/Next (and ← →), the
//! baseball-bat embedding editor and plot, and the three mask conventions.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::embedding_plot::{draw_embedding_plot, PlotLayout, Point};
use crate::engine::Trace;
use crate::lessons::{Lesson, Quiz, QuizKind};

use super::dom;
use super::state::Settings;
use crate::format::exact;

/// The current lesson step: its words and its picture side by side (stacked on a
/// phone, words first), a question before the answer when the step asks one, and the
/// navigation. In presenter mode it is all there is on screen.
#[component]
pub fn LessonPanel(
    lessons: Arc<Vec<Lesson>>,
    #[prop(into)] position: Signal<(usize, usize)>,
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    on_go: Callback<(usize, usize)>,
    on_exit: Callback<()>,
    /// Presenter mode: one step per screen, large type.
    present: RwSignal<bool>,
    /// What goes under the words (editors, tables of conventions).
    #[prop(into)]
    extras: ViewFn,
    /// The picture the words talk about.
    #[prop(into)]
    picture: ViewFn,
) -> impl IntoView {
    let l3 = StoredValue::new(lessons.clone());
    let counts = StoredValue::new(lessons.iter().map(|l| l.steps.len()).collect::<Vec<usize>>());
    let n_steps = move |l: usize| counts.with_value(|c| c.get(l).copied().unwrap_or(1));
    let go = move |delta: isize| {
        let (l, s) = position.get_untracked();
        let n = n_steps(l) as isize;
        let next = (s as isize + delta).clamp(0, (n - 1).max(0)) as usize;
        if next != s {
            on_go.run((l, next));
        }
    };
    // ← → (and space in presenter mode) move through the steps, unless the learner is
    // typing or reading a heatmap; Esc leaves presenter mode, F goes full screen.
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        let typing =
            ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()).is_some_and(
                |el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT" | "CANVAS" | "BUTTON"),
            );
        if ev.alt_key() || ev.ctrl_key() || ev.meta_key() {
            return;
        }
        let presenting = present.get_untracked();
        match ev.key().as_str() {
            "ArrowRight" if !typing || presenting => go(1),
            "ArrowLeft" if !typing || presenting => go(-1),
            " " if presenting && !typing => {
                ev.prevent_default();
                go(if ev.shift_key() { -1 } else { 1 });
            }
            "Escape" if presenting => {
                dom::exit_fullscreen();
                present.set(false);
            }
            "f" | "F" if presenting && !typing => dom::toggle_fullscreen(),
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());

    let current = move || {
        let (l, s) = position.get();
        l3.with_value(|all| all.get(l).and_then(|lesson| lesson.steps.get(s)).cloned())
    };
    let text = move || {
        let step = current()?;
        trace.get().map(|t| (step.narrate)(&t))
    };
    let lesson_tabs = lessons
        .iter()
        .enumerate()
        .map(|(i, lesson)| {
            view! {
                <button
                    type="button"
                    class="al-tab"
                    class:al-selected=move || position.get().0 == i
                    data-testid="lesson-tab"
                    data-lesson=lesson.id
                    on:click=move |_| on_go.run((i, 0))
                >
                    {format!("{}. {}", i + 1, lesson.title)}
                </button>
            }
        })
        .collect_view();
    let header = {
        let lessons = lessons.clone();
        move || {
            let (l, s) = position.get();
            let lesson = lessons.get(l)?;
            let step = lesson.steps.get(s)?;
            Some(view! {
                <p class="al-lesson-meta">
                    {format!("{} · follows {} · step {} of {}", lesson.title, lesson.seeds, s + 1, lesson.steps.len())}
                </p>
                <h2 data-testid="lesson-step-title">{step.title}</h2>
            })
        }
    };
    let copied = RwSignal::new(false);
    let copy_link = move |_| {
        dom::copy_text(&dom::href());
        copied.set(true);
    };
    Effect::new(move |_| {
        position.track();
        copied.set(false);
    });
    let quiz = move || {
        let step = current()?;
        let quiz = step.quiz?;
        Some(view! { <QuizView quiz=quiz trace=trace position=position /> })
    };
    view! {
        <section class="al-lesson" aria-label="Lesson" data-testid="lesson" class:al-presenting=move || present.get()>
            <div class="al-tabs al-lesson-tabs">{lesson_tabs}</div>
            <div class="al-stage">
                <div class="al-stage-words">
                    {header}
                    <p class="al-lesson-text" data-testid="lesson-text" aria-live="polite">{text}</p>
                    {quiz}
                    <div class="al-lesson-nav">
                        <button type="button" data-testid="lesson-back" on:click=move |_| go(-1)
                            prop:disabled=move || position.get().1 == 0>"← Back"</button>
                        <button type="button" data-testid="lesson-next" on:click=move |_| go(1)
                            prop:disabled=move || { let (l, s) = position.get(); s + 1 >= n_steps(l) }>"Next →"</button>
                    </div>
                    <div class="al-lesson-tools">
                        <button type="button" class="al-link" data-testid="lesson-exit" on:click=move |_| { present.set(false); on_exit.run(()) }>
                            "Open this step in the free explorer"
                        </button>
                        <button type="button" class="al-link" data-testid="copy-link" on:click=copy_link>
                            {move || if copied.get() { "Link copied" } else { "Copy link to this step" }}
                        </button>
                        <button type="button" class="al-link" data-testid="present" on:click=move |_| present.update(|p| *p = !*p)>
                            {move || if present.get() { "Leave presenter mode (Esc)" } else { "Present (full screen with F)" }}
                        </button>
                    </div>
                    <div class="al-stage-extras">{move || extras.run()}</div>
                </div>
                <div class="al-stage-picture" data-testid="lesson-picture">{move || picture.run()}</div>
            </div>
        </section>
    }
}

/// What the learner answered.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Answer {
    Choice(usize),
    Number(f64),
}

/// A question before the answer: buttons or a number; the verdict and its reason are
/// computed from the live trace, so an edit changes the right answer too.
#[component]
fn QuizView(
    quiz: Quiz,
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    position: Signal<(usize, usize)>,
) -> impl IntoView {
    let answer = RwSignal::new(None::<Answer>);
    // a new step asks afresh
    Effect::new(move |_| {
        position.track();
        answer.set(None);
    });
    let typed = RwSignal::new(String::new());
    let question = move || trace.get().map(|t| (quiz.question)(&t)).unwrap_or_default();
    let verdict = move || {
        let t = trace.get()?;
        match answer.get()? {
            Answer::Choice(i) => quiz.judge_choice(&t, i),
            Answer::Number(x) => quiz.judge_number(&t, x),
        }
    };
    let inputs = move || match quiz.kind {
        QuizKind::Choice { choices, .. } => {
            let names = trace.get().map(|t| choices(&t)).unwrap_or_default();
            names
                .into_iter()
                .enumerate()
                .map(|(i, name)| {
                    view! {
                        <button
                            type="button"
                            class="al-quiz-choice"
                            data-testid="quiz-choice"
                            data-choice=i
                            aria-pressed=move || (answer.get() == Some(Answer::Choice(i))).to_string()
                            on:click=move |_| answer.set(Some(Answer::Choice(i)))
                        >
                            {name}
                        </button>
                    }
                })
                .collect_view()
                .into_any()
        }
        QuizKind::Number { .. } => {
            let check = move || {
                if let Ok(x) = typed.get_untracked().trim().parse::<f64>() {
                    answer.set(Some(Answer::Number(x)));
                }
            };
            view! {
                <input
                    type="number"
                    step="0.01"
                    data-testid="quiz-number"
                    aria-label="Your answer"
                    prop:value=move || typed.get()
                    on:input=move |ev| typed.set(event_target_value(&ev))
                    on:keydown=move |ev| if ev.key() == "Enter" { check() }
                />
                <button type="button" class="al-quiz-choice" data-testid="quiz-choice" on:click=move |_| check()>
                    "Check"
                </button>
            }
            .into_any()
        }
    };
    view! {
        <div class="al-quiz" data-testid="quiz" role="group" aria-label="Question">
            <p class="al-quiz-question">{question}</p>
            <div class="al-quiz-inputs">{inputs}</div>
            <p
                class="al-quiz-reveal"
                class:al-right=move || verdict().is_some_and(|v| v.right)
                data-testid="quiz-reveal"
                aria-live="polite"
                hidden=move || answer.get().is_none()
            >
                {move || verdict().map(|v| v.text).unwrap_or_default()}
            </p>
        </div>
    }
}

/// Editable embedding vectors (the scenario's explicit `embeddings`).
#[component]
pub fn EmbeddingEditor(settings: RwSignal<Settings>) -> impl IntoView {
    move || {
        let words: Vec<(String, Vec<f64>)> =
            settings.with(|s| s.embeddings.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
        let names = crate::engine::embedding::lexicon(settings.with(|s| s.d_model)).map(|l| l.dims.to_vec());
        let rows = words
            .into_iter()
            .map(|(word, vector)| {
                let cells = vector
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let word = word.clone();
                        let label = names.as_ref().and_then(|n| n.get(i)).map_or(format!("d{i}"), |s| s.to_string());
                        let aria = format!("{word} {label}");
                        view! {
                            <label class="al-emb-cell">
                                <span>{label}</span>
                                <input
                                    type="number"
                                    step="0.1"
                                    aria-label=aria
                                    data-testid="embedding-input"
                                    data-word=word.clone()
                                    data-dim=i
                                    prop:value=exact(*v)
                                    on:change=move |ev| {
                                        if let Ok(x) = event_target_value(&ev).trim().parse::<f64>() {
                                            settings.update(|s| {
                                                if let Some(slot) = s.embeddings.get_mut(&word).and_then(|v| v.get_mut(i)) {
                                                    *slot = x;
                                                }
                                            });
                                        }
                                    }
                                />
                            </label>
                        }
                    })
                    .collect_view();
                view! { <div class="al-emb-row"><code>{word}</code>{cells}</div> }
            })
            .collect_view();
        view! { <div class="al-emb-editor" data-testid="embedding-editor">{rows}</div> }
    }
}

/// The sports–animal plane of seed 003: "baseball", "bat" before attention, and "bat"
/// after (its output row), with an arrow. Drag "bat" to move its embedding.
#[component]
pub fn EmbeddingPlot(
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    settings: RwSignal<Settings>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let dragging = RwSignal::new(false);
    let layout = PlotLayout::new(300.0, 260.0, (-0.5, 3.0), (-0.5, 3.0));
    let dpr = dom::dpr();
    let points = move || -> Option<Vec<Point>> {
        let t = trace.get()?;
        let (x, out) = (t.step(crate::engine::StepName::X)?, t.step(crate::engine::StepName::Output)?);
        let tokens = t.tokens.first()?;
        let mut pts = Vec::new();
        for (i, tok) in tokens.iter().enumerate() {
            let key = tok.to_lowercase();
            if key != "baseball" && key != "bat" {
                continue;
            }
            let before = (x.data[[0, i, 0]], x.data[[0, i, 1]]);
            let after = (out.data[[0, i, 0]], out.data[[0, i, 1]]);
            pts.push(Point { label: tok.clone(), before, after, draggable: key == "bat" });
        }
        Some(pts)
    };
    Effect::new(move |_| {
        let Some(pts) = points() else { return };
        let Some(el) = canvas.get() else { return };
        el.set_width((layout.width * dpr) as u32);
        el.set_height((layout.height * dpr) as u32);
        if let Some(backend) = CanvasBackend::with_canvas_object(el) {
            let _ = draw_embedding_plot(&backend.into_drawing_area(), &pts, &layout, &dom::theme(), dpr);
        }
    });
    let move_bat = move |x: f64, y: f64| {
        let (sports, animal) = layout.value_at(x, y);
        let round = |v: f64| (v * 100.0).round() / 100.0;
        settings.update(|s| {
            if let Some(v) = s.embeddings.get_mut("bat") {
                if v.len() >= 2 {
                    v[0] = round(sports);
                    v[1] = round(animal);
                }
            }
        });
    };
    view! {
        <figure class="al-card al-plot">
            <figcaption>"sports (→) and animal (↑): drag \"bat\""</figcaption>
            <canvas
                node_ref=canvas
                data-testid="embedding-plot"
                role="img"
                aria-label="Embedding plot: bat before and after attention, and baseball"
                style=format!("width:{}px;height:{}px;touch-action:none", layout.width, layout.height)
                on:pointerdown=move |ev: leptos::ev::PointerEvent| { dragging.set(true); move_bat(f64::from(ev.offset_x()), f64::from(ev.offset_y())); }
                on:pointermove=move |ev: leptos::ev::PointerEvent| if dragging.get_untracked() { move_bat(f64::from(ev.offset_x()), f64::from(ev.offset_y())) }
                on:pointerup=move |_| dragging.set(false)
                on:pointerleave=move |_| dragging.set(false)
            ></canvas>
        </figure>
    }
}

/// The same boolean mask in the three conventions the seeds and PyTorch use.
#[component]
pub fn MaskConventions(
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    #[prop(into)] batch: Signal<usize>,
) -> impl IntoView {
    move || {
        let t = trace.get()?;
        let b = batch.get().min(t.sizes.b.saturating_sub(1));
        let n = t.sizes.t;
        let grid = |f: &dyn Fn(bool) -> &'static str| {
            (0..n)
                .map(|i| {
                    let cells = (0..n)
                        .map(|j| {
                            let blocked = t.mask.is_blocked(b, i, j);
                            view! { <td class:al-blocked=blocked>{f(blocked)}</td> }
                        })
                        .collect_view();
                    view! { <tr><th scope="row">{t.tokens[b][i].clone()}</th>{cells}</tr> }
                })
                .collect_view()
        };
        Some(view! {
            <div class="al-conventions" data-testid="mask-conventions">
                <figure>
                    <figcaption>"This app, seed 001, nn.MultiheadAttention: " <code>"True"</code> " = blocked"</figcaption>
                    <table><tbody>{grid(&|x| if x { "T" } else { "F" })}</tbody></table>
                </figure>
                <figure>
                    <figcaption>"Seeds 000 and 003: " <code>"masked_fill(mask == 0, …)"</code> ", 0 = blocked"</figcaption>
                    <table><tbody>{grid(&|x| if x { "0" } else { "1" })}</tbody></table>
                </figure>
                <figure>
                    <figcaption><code>"F.scaled_dot_product_attention"</code> " boolean attn_mask: " <code>"True"</code> " = may attend"</figcaption>
                    <table><tbody>{grid(&|x| if x { "F" } else { "T" })}</tbody></table>
                </figure>
            </div>
        })
    }
}
