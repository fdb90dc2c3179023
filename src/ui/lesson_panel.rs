//! The lessons mode: the guided text above the explorer, Back/Next (and ← →), the
//! baseball-bat embedding editor and plot, and the three mask conventions.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::embedding_plot::{draw_embedding_plot, PlotLayout, Point, DEFAULT_RANGE};
use crate::engine::Trace;
use crate::lessons::{Lesson, Quiz, QuizKind};

use super::dom;
use super::state::Settings;
use crate::format::{exact, short};

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

/// The most numbers of one word the editor shows (an imported `d_model` may be 1024).
const MAX_EDIT_DIMS: usize = 64;

/// Editable embedding vectors (the scenario's explicit `embeddings`), or a sentence saying
/// why there is nothing to edit.
#[component]
pub fn EmbeddingEditor(settings: RwSignal<Settings>) -> impl IntoView {
    move || {
        let d_model = settings.with(|s| s.d_model);
        let words: Vec<(String, Vec<f64>)> =
            settings.with(|s| s.embeddings.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
        if words.is_empty() {
            return view! {
                <div class="al-emb-editor" data-testid="embedding-editor">
                    <p class="al-note" data-testid="embedding-editor-note">
                        "This scenario gives no word an explicit vector: every word gets a toy embedding (see the "
                        <code>"x"</code>
                        " step). Import a scenario with \"embeddings\" to edit vectors here."
                    </p>
                </div>
            }
            .into_any();
        }
        let names = crate::engine::embedding::lexicon(d_model).map(|l| l.dims.to_vec());
        let rows = words
            .into_iter()
            .map(|(word, vector)| {
                let n = vector.len();
                let cells = vector
                    .iter()
                    .take(MAX_EDIT_DIMS)
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
                                        let parsed = event_target_value(&ev).trim().parse::<f64>();
                                        if let Ok(x) = parsed.map_err(drop).and_then(|x| if x.is_finite() { Ok(x) } else { Err(()) }) {
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
                let note = (n != d_model || n > MAX_EDIT_DIMS).then(|| {
                    let mut parts = Vec::new();
                    if n != d_model {
                        parts.push(format!("{n} numbers, but d_model = {d_model}: the engine refuses this vector"));
                    }
                    if n > MAX_EDIT_DIMS {
                        parts.push(format!("the first {MAX_EDIT_DIMS} of {n} shown"));
                    }
                    view! { <span class="al-note">{parts.join("; ")}</span> }
                });
                view! { <div class="al-emb-row"><code>{word}</code>{cells}{note}</div> }
            })
            .collect_view();
        view! { <div class="al-emb-editor" data-testid="embedding-editor">{rows}</div> }.into_any()
    }
}

/// What the embedding plot shows for a trace: the points, the axes' names, and a sentence
/// about what is plotted; or why there is nothing to plot.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotData {
    /// "baseball" and "bat" of sentence 1, before (x) and after (output).
    pub points: Vec<Point>,
    /// `d_model = 1`: the plot is a line.
    pub one_d: bool,
    /// The caption.
    pub caption: String,
}

/// The words the plot follows.
const PLOTTED: [&str; 2] = ["baseball", "bat"];

/// The plot of "baseball" and "bat" in sentence 1 of any trace: dimensions 1 and 2 of
/// their embedding (`x`) and of their output row, read with checked indexing. `bat_editable`
/// says whether "bat" has an explicit vector the plot may drag. `Err` says in words why
/// there is nothing to plot.
pub fn plot_data(t: &Trace, bat_editable: bool) -> Result<PlotData, String> {
    use crate::engine::StepName;
    let (Some(x), Some(out)) = (t.step(StepName::X), t.step(StepName::Output)) else {
        return Err("This trace has no x or output step to plot.".into());
    };
    let (Some(x), Some(out)) = (x.matrix(0, 0), out.matrix(0, 0)) else {
        return Err("This trace has no sentence to plot.".into());
    };
    let one_d = t.sizes.d_model < 2;
    let point = |m: &ndarray::ArrayView2<'_, f64>, i: usize| -> Option<(f64, f64)> {
        let first = *m.get((i, 0))?;
        let second = if one_d { 0.0 } else { *m.get((i, 1))? };
        Some((first, second))
    };
    let mut points = Vec::new();
    for (i, tok) in t.query_tokens(0).iter().enumerate() {
        let key = tok.to_lowercase();
        if !PLOTTED.contains(&key.as_str()) {
            continue;
        }
        let (Some(before), Some(after)) = (point(&x, i), point(&out, i)) else { continue };
        points.push(Point { label: tok.clone(), before, after, draggable: key == "bat" && bat_editable });
    }
    if points.is_empty() {
        return Err(format!(
            "This plot follows \"baseball\" and \"bat\"; {} has neither, so there is nothing to plot. \
             Type them into the sentences to see them move.",
            if t.sizes.b > 1 { "sentence 1" } else { "the sentence" }
        ));
    }
    let name =
        |d: usize| t.feature_names.as_ref().and_then(|n| n.get(d)).map_or(format!("d{d}"), |s| s.to_string());
    let mut caption = if one_d {
        format!("{} (→). d_model = 1: each word is a single number, so the plot is a line", name(0))
    } else {
        format!("{} (→) and {} (↑)", name(0), name(1))
    };
    if t.sizes.d_model > 2 {
        caption.push_str(&format!(", the first 2 of d_model = {} dimensions", t.sizes.d_model));
    }
    if t.sizes.b > 1 {
        caption.push_str("; sentence 1 of the batch");
    }
    if t.is_cross() {
        caption.push_str("; the queries' words (their keys and values come from the other sentences)");
    }
    if points.iter().any(|p| p.draggable) {
        caption.push_str(if one_d { ". Drag \"bat\" along the line" } else { ". Drag \"bat\"" });
    }
    Ok(PlotData { points, one_d, caption })
}

/// The sports–animal plane of seed 003: "baseball", "bat" before attention, and "bat"
/// after (its output row), with an arrow. Drag "bat" to move its embedding; a table says
/// the same in numbers, and the editor beside it is the keyboard path.
#[component]
pub fn EmbeddingPlot(
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    settings: RwSignal<Settings>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let dragging = RwSignal::new(false);
    let (width, height) = (300.0, 260.0);
    let dpr = dom::dpr();
    let data = Memo::new(move |_| {
        let t = trace.get()?;
        let bat_editable = settings.with(|s| s.embeddings.get("bat").is_some_and(|v| !v.is_empty()));
        Some(plot_data(&t, bat_editable))
    });
    let layout = Memo::new(move |_| {
        data.with(|d| match d {
            Some(Ok(d)) => PlotLayout::fit(width, height, &d.points, d.one_d),
            _ => PlotLayout::new(width, height, DEFAULT_RANGE, DEFAULT_RANGE),
        })
    });
    Effect::new(move |_| {
        let Some(Ok(d)) = data.get() else { return };
        let Some(el) = canvas.get() else { return };
        let layout = layout.get();
        el.set_width((layout.width * dpr) as u32);
        el.set_height((layout.height * dpr) as u32);
        if let Some(backend) = CanvasBackend::with_canvas_object(el) {
            let _ = draw_embedding_plot(&backend.into_drawing_area(), &d.points, &layout, &dom::theme(), dpr);
        }
    });
    let can_drag = move || data.with(|d| matches!(d, Some(Ok(d)) if d.points.iter().any(|p| p.draggable)));
    let move_bat = move |x: f64, y: f64| {
        if !can_drag() {
            return;
        }
        let layout = layout.get_untracked();
        let (first, second) = layout.value_at(x, y);
        let round = |v: f64| (v * 100.0).round() / 100.0;
        settings.update(|s| {
            if let Some(v) = s.embeddings.get_mut("bat") {
                if let Some(slot) = v.get_mut(0) {
                    *slot = round(first);
                }
                if !layout.one_d {
                    if let Some(slot) = v.get_mut(1) {
                        *slot = round(second);
                    }
                }
            }
        });
    };
    let caption = move || match data.get() {
        Some(Ok(d)) => d.caption,
        Some(Err(why)) => why,
        None => String::new(),
    };
    let table = move || {
        let Some(Ok(d)) = data.get() else { return None };
        let coords = |(a, b): (f64, f64)| {
            if d.one_d {
                short(a)
            } else {
                format!("({}, {})", short(a), short(b))
            }
        };
        let rows = d
            .points
            .iter()
            .map(|p| {
                view! { <tr><th scope="row">{p.label.clone()}</th><td>{coords(p.before)}</td><td>{coords(p.after)}</td></tr> }
            })
            .collect_view();
        Some(view! {
            <table class="al-plot-table" data-testid="embedding-plot-table">
                <thead><tr><th scope="col">"word"</th><th scope="col">"embedding (x)"</th><th scope="col">"after attention (output)"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        })
    };
    view! {
        <figure class="al-card al-plot">
            <figcaption data-testid="embedding-plot-caption">{caption}</figcaption>
            <canvas
                node_ref=canvas
                data-testid="embedding-plot"
                role="img"
                aria-label="Embedding plot: baseball and bat before and after attention; the table below has the numbers"
                hidden=move || !matches!(data.get(), Some(Ok(_)))
                style=format!("width:{width}px;height:{height}px;touch-action:none")
                on:pointerdown=move |ev: leptos::ev::PointerEvent| { dragging.set(true); move_bat(f64::from(ev.offset_x()), f64::from(ev.offset_y())); }
                on:pointermove=move |ev: leptos::ev::PointerEvent| if dragging.get_untracked() { move_bat(f64::from(ev.offset_x()), f64::from(ev.offset_y())) }
                on:pointerup=move |_| dragging.set(false)
                on:pointerleave=move |_| dragging.set(false)
            ></canvas>
            {table}
        </figure>
    }
}

/// The most query rows and key columns the conventions show (T may be 128).
const MAX_MASK_SIDE: usize = 16;

/// The same boolean mask in the three conventions the seeds and PyTorch use: one row per
/// query, one column per key (`T_q × T_k` in cross-attention), read with checked indexing.
#[component]
pub fn MaskConventions(
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    #[prop(into)] batch: Signal<usize>,
) -> impl IntoView {
    move || {
        let t = trace.get()?;
        let [n_b, t_q, t_k] = t.mask.shape;
        let b = batch.get().min(n_b.saturating_sub(1));
        let (n_rows, n_cols) = (t_q.min(MAX_MASK_SIDE), t_k.min(MAX_MASK_SIDE));
        let queries: Vec<String> =
            (0..n_rows).map(|i| t.query_tokens(b).get(i).cloned().unwrap_or_default()).collect();
        let keys: Vec<String> =
            (0..n_cols).map(|j| t.key_tokens(b).get(j).cloned().unwrap_or_default()).collect();
        let grid = |f: &dyn Fn(bool) -> &'static str| {
            let head = keys.iter().map(|k| view! { <th scope="col">{k.clone()}</th> }).collect_view();
            let body = queries
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    let cells = (0..n_cols)
                        .map(|j| {
                            let blocked = t.mask.is_blocked(b, i, j);
                            view! { <td class:al-blocked=blocked>{f(blocked)}</td> }
                        })
                        .collect_view();
                    view! { <tr><th scope="row">{q.clone()}</th>{cells}</tr> }
                })
                .collect_view();
            view! { <table><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table> }
        };
        let cut = (t_q > n_rows || t_k > n_cols).then(|| {
            view! {
                <p class="al-note" data-testid="mask-conventions-cut">
                    {format!("The first {n_rows} queries and {n_cols} keys of {t_q} × {t_k}.")}
                </p>
            }
        });
        Some(view! {
            <div class="al-conventions" data-testid="mask-conventions">
                <figure>
                    <figcaption>"This app, seed 001, nn.MultiheadAttention: " <code>"True"</code> " = blocked"</figcaption>
                    {grid(&|x| if x { "T" } else { "F" })}
                </figure>
                <figure>
                    <figcaption>"Seeds 000 and 003: " <code>"masked_fill(mask == 0, …)"</code> ", 0 = blocked"</figcaption>
                    {grid(&|x| if x { "0" } else { "1" })}
                </figure>
                <figure>
                    <figcaption><code>"F.scaled_dot_product_attention"</code> " boolean attn_mask: " <code>"True"</code> " = may attend"</figcaption>
                    {grid(&|x| if x { "F" } else { "T" })}
                </figure>
                {cut}
            </div>
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn the_plot_has_points_or_a_reason_for_any_scenario() {
        for (what, scenario) in crate::lessons::tests::odd_scenarios() {
            let trace = run(&scenario).unwrap_or_else(|e| panic!("{what}: {e}"));
            match plot_data(&trace, true) {
                Ok(d) => {
                    assert!(!d.points.is_empty(), "{what}");
                    assert_eq!(d.one_d, trace.sizes.d_model == 1, "{what}");
                    assert!(!d.caption.is_empty());
                }
                Err(why) => assert!(why.contains("nothing to plot"), "{what}: {why}"),
            }
        }
    }

    #[test]
    fn the_plot_reads_the_seed_003_numbers_and_says_d_model_1() {
        let lesson = crate::lessons::baseball_bat::lesson();
        let trace = run(&lesson.steps[3].scenario).unwrap();
        let d = plot_data(&trace, true).unwrap();
        let bat = d.points.iter().find(|p| p.label == "bat").unwrap();
        assert_eq!(bat.before, (1.0, 1.0));
        assert!((bat.after.0 - 1.5).abs() < 1e-12 && (bat.after.1 - 0.5).abs() < 1e-12);
        assert!(bat.draggable && d.caption.starts_with("sports (→) and animal (↑)"), "{}", d.caption);

        let (_, one) = &crate::lessons::tests::odd_scenarios()[0];
        let d = plot_data(&run(one).unwrap(), false).unwrap();
        assert!(d.one_d && d.caption.contains("d_model = 1") && d.points.iter().all(|p| !p.draggable));
        assert_eq!(d.points.len(), 2);

        let none = run(&crate::engine::Scenario::identity(&["the cat sat"], 4, 1)).unwrap();
        assert!(plot_data(&none, true).unwrap_err().contains("neither"));
    }
}
