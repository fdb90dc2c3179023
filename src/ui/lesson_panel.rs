//! The lessons mode: the guided text above the explorer, Back/Next (and ← →), the
//! baseball-bat embedding editor and plot, and the three mask conventions.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::embedding_plot::{draw_embedding_plot, PlotLayout, Point};
use crate::engine::Trace;
use crate::lessons::Lesson;

use super::dom;
use super::state::Settings;
use crate::format::exact;

/// The text of the current lesson step, with its navigation.
#[component]
pub fn LessonPanel(
    lessons: Arc<Vec<Lesson>>,
    #[prop(into)] position: Signal<(usize, usize)>,
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    on_go: Callback<(usize, usize)>,
    on_exit: Callback<()>,
) -> impl IntoView {
    let l3 = lessons.clone();
    let counts = StoredValue::new(lessons.iter().map(|l| l.steps.len()).collect::<Vec<usize>>());
    let n_steps = move |l: usize| counts.with_value(|c| c.get(l).copied().unwrap_or(1));
    let go = move |delta: isize| {
        let (l, s) = position.get_untracked();
        let n = n_steps(l) as isize;
        let next = (s as isize + delta).clamp(0, n - 1) as usize;
        if next != s {
            on_go.run((l, next));
        }
    };
    // ← → move through the steps, unless the learner is typing or reading a heatmap.
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        let typing = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT" | "CANVAS"));
        if typing || ev.alt_key() || ev.ctrl_key() || ev.meta_key() {
            return;
        }
        match ev.key().as_str() {
            "ArrowRight" => go(1),
            "ArrowLeft" => go(-1),
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());

    let text = move || {
        let (l, s) = position.get();
        let step = l3.get(l)?.steps.get(s)?;
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
    view! {
        <section class="al-lesson" aria-label="Lesson" data-testid="lesson">
            <div class="al-tabs">{lesson_tabs}</div>
            {header}
            <p class="al-lesson-text" data-testid="lesson-text" aria-live="polite">{text}</p>
            <div class="al-lesson-nav">
                <button type="button" data-testid="lesson-back" on:click=move |_| go(-1)
                    prop:disabled=move || position.get().1 == 0>"← Back"</button>
                <button type="button" data-testid="lesson-next" on:click=move |_| go(1)
                    prop:disabled=move || { let (l, s) = position.get(); s + 1 >= n_steps(l) }>"Next →"</button>
                <button type="button" class="al-link" data-testid="lesson-exit" on:click=move |_| on_exit.run(())>
                    "Open this step in the free explorer"
                </button>
            </div>
        </section>
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
