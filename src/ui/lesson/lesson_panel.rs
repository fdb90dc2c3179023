//! The lessons mode: the current step's words beside its picture, Back/Next, the step's
//! question ([`crate::ui::lesson::lesson_quiz`]), and the keys that move through the steps
//! ([`crate::ui::lesson::lesson_keys`]). The extras under the words are components of their own:
//! [`crate::ui::lesson::embedding_editor`], [`crate::ui::lesson::embedding_plot`], [`crate::ui::lesson::mask_conventions`].

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::lessons::glossary::{first_used_in, Term};
use crate::lessons::{meta_line, Lesson};

use crate::ui::lesson::glossary_panel::{LessonWords, ReadingFolds, TermMeaning};
use crate::ui::lesson::lesson_keys::{key_action, step_after, KeyAction};
use crate::ui::lesson::lesson_quiz::QuizView;
use crate::ui::platform::{address, clipboard, screen};
use crate::ui::widgets::later::Later;

/// The current lesson step: its words and its picture side by side (stacked on a
/// phone, words first), a question before the answer when the step asks one, and the
/// navigation. In presenter mode it is all there is on screen.
#[component]
pub fn LessonPanel(
    /// Every lesson, in order.
    lessons: Arc<Vec<Lesson>>,
    /// The open lesson and step.
    #[prop(into)]
    position: Signal<(usize, usize)>,
    /// The shown trace, which the words are written from.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// Opens a lesson step.
    on_go: Callback<(usize, usize)>,
    /// Leaves the lessons for the explorer.
    on_exit: Callback<()>,
    /// True while the learner has edited the lesson's vectors (Back and Next keep them).
    #[prop(into)]
    edited: Signal<bool>,
    /// Puts the open step's own vectors back ("Reset this lesson").
    on_reset: Callback<()>,
    /// Presenter mode: one step per screen, large type.
    present: RwSignal<bool>,
    /// The step whose question has been answered, if it is the open one.
    revealed: RwSignal<Option<(usize, usize)>>,
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
        let next = step_after(s, delta, n_steps(l));
        if next != s {
            on_go.run((l, next));
        }
    };
    // ← →, PageDown/PageUp (a presentation remote), space, Home and End move through the
    // steps, unless a field or a heatmap has them (lesson_keys.rs); Esc leaves presenter
    // mode, F goes full screen.
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.alt_key() || ev.ctrl_key() || ev.meta_key() {
            return;
        }
        match key_action(
            &ev.key(),
            ev.shift_key(),
            crate::ui::lesson::lesson_keys::target_focus(&ev),
            present.get_untracked(),
        ) {
            Some(KeyAction::Step { by, consume }) => {
                if consume {
                    ev.prevent_default();
                }
                go(by);
            }
            Some(KeyAction::Edge { last }) => {
                ev.prevent_default();
                let (l, s) = position.get_untracked();
                let to = if last { n_steps(l).saturating_sub(1) } else { 0 };
                if to != s {
                    on_go.run((l, to));
                }
            }
            Some(KeyAction::LeavePresenter) => {
                screen::exit_fullscreen();
                present.set(false);
            }
            Some(KeyAction::ToggleFullscreen) => screen::toggle_fullscreen(),
            None => {}
        }
    });
    on_cleanup(move || handle.remove());

    let current = move || {
        let (l, s) = position.get();
        l3.with_value(|all| all.get(l).and_then(|lesson| lesson.steps.get(s)).cloned())
    };
    // the glossary terms this step is the first of its lesson to use, linked in the words
    let terms_here = move |l: usize, s: usize| -> Vec<&'static Term> {
        l3.with_value(|all| all.get(l).map(|lesson| first_used_in(lesson, s)).unwrap_or_default())
    };
    let open_term = RwSignal::new(None::<&'static str>);
    Effect::new(move |_| {
        position.track();
        open_term.set(None);
        revealed.set(None);
    });
    let text = move || {
        let step = current()?;
        let (l, s) = position.get();
        let words = trace.with(|t| t.as_ref().map(|t| step.words(t)))?;
        Some(view! { <LessonWords text=words terms=terms_here(l, s) open=open_term /> })
    };
    // "3. Masks": a lesson as the tabs and the presenter's menu name it
    let numbered = |i: usize, lesson: &Lesson| format!("{}. {}", i + 1, lesson.title);
    // (the names, so that the tools, built a task later, can build the options)
    let names: Vec<String> = lessons.iter().enumerate().map(|(i, lesson)| numbered(i, lesson)).collect();
    let menu_options = move || {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                view! {
                    <option value=i.to_string() selected=move || position.get().0 == i>
                        {name.clone()}
                    </option>
                }
            })
            .collect_view()
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
                    {numbered(i, lesson)}
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
                <p class="al-lesson-meta">{meta_line(lesson, s)}</p>
                <h2 data-testid="lesson-step-title">{step.title}</h2>
            })
        }
    };
    // on a phone the tabs are one row that scrolls sideways: the open lesson's tab is
    // scrolled into it (the row only, never the page). It reads the boxes in the next
    // frame, where the page is laid out anyway: read while the app mounts, they would force
    // a layout of the whole page inside the first task
    let tabs_ref = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        position.track();
        request_animation_frame(move || {
            // (the panel may be gone by the next frame)
            if let Some(Some(row)) = tabs_ref.try_get_untracked() {
                scroll_selected_into_row(&row);
            }
        });
    });
    let copied = RwSignal::new(false);
    let copy_link = move |_| {
        clipboard::copy_text(&address::href());
        copied.set(true);
    };
    Effect::new(move |_| {
        position.track();
        copied.set(false);
    });
    let quiz = move || {
        let step = current()?;
        let quiz = step.quiz?;
        Some(view! { <QuizView quiz=quiz trace=trace position=position revealed=revealed /> })
    };
    view! {
        <section
            class="al-lesson"
            aria-label="Lesson"
            data-testid="lesson"
            class:al-presenting=move || present.get()
        >
            <div class="al-tabs al-lesson-tabs" node_ref=tabs_ref>
                {lesson_tabs}
            </div>
            <div class="al-stage">
                <div class="al-stage-words">
                    {header} <p class="al-lesson-text" data-testid="lesson-text" aria-live="polite">
                        {text}
                    </p> <TermMeaning open=open_term /> {quiz} <div class="al-lesson-nav">
                        <button
                            type="button"
                            data-testid="lesson-back"
                            on:click=move |_| go(-1)
                            prop:disabled=move || position.get().1 == 0
                        >
                            "← Back"
                        </button>
                        <button
                            type="button"
                            data-testid="lesson-next"
                            on:click=move |_| go(1)
                            prop:disabled=move || {
                                let (l, s) = position.get();
                                s + 1 >= n_steps(l)
                            }
                        >
                            "Next →"
                        </button>
                        // the last step leads on to the next lesson (here and in presenter
                        // mode, where the lesson tabs are hidden): no dead end
                        {move || {
                            let (l, s) = position.get();
                            let title = l3.with_value(|all| all.get(l + 1).map(|next| next.title));
                            title
                                .filter(|_| s + 1 >= n_steps(l))
                                .map(|title| {
                                    view! {
                                        <button
                                            type="button"
                                            class="al-next-lesson"
                                            data-testid="lesson-next-lesson"
                                            on:click=move |_| on_go.run((l + 1, 0))
                                        >
                                            {format!("Next lesson: {title} →")}
                                        </button>
                                    }
                                })
                        }}
                    </div> <Later tasks=2>
                        // the tools after the picture (on a phone they come under it):
                        // built first, they would be pushed down when it arrives
                        <div class="al-lesson-tools">
                            {move || {
                                edited
                                    .get()
                                    .then(|| {
                                        view! {
                                            <button
                                                type="button"
                                                class="al-link"
                                                data-testid="lesson-reset"
                                                title="Your edits to this lesson's vectors stay as you move between its steps, until you reset them"
                                                on:click=move |_| on_reset.run(())
                                            >
                                                "Reset this lesson's vectors"
                                            </button>
                                        }
                                    })
                            }}
                            <button
                                type="button"
                                class="al-link"
                                data-testid="lesson-exit"
                                on:click=move |_| {
                                    present.set(false);
                                    on_exit.run(())
                                }
                            >
                                "Open this step in the free explorer"
                            </button>
                            <label
                                class="al-lesson-menu"
                                title="Presenter mode hides the lesson tabs: change lesson here"
                            >
                                "Lesson "
                                <select
                                    data-testid="lesson-menu"
                                    on:change=move |ev| {
                                        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                                            on_go.run((i, 0));
                                        }
                                    }
                                >
                                    {menu_options.clone()}
                                </select>
                            </label>
                            <button type="button" class="al-link" data-testid="copy-link" on:click=copy_link>
                                {move || if copied.get() { "Link copied" } else { "Copy link to this step" }}
                            </button>
                            <button
                                type="button"
                                class="al-link"
                                data-testid="present"
                                on:click=move |_| present.update(|p| *p = !*p)
                            >
                                {move || {
                                    if present.get() {
                                        "Leave presenter mode (Esc)"
                                    } else {
                                        "Present (full screen with F)"
                                    }
                                }}
                            </button>
                        </div>
                        <div class="al-stage-extras">
                            {
                                let extras = extras.clone();
                                move || extras.run()
                            }
                        </div>
                        <div class="al-reading-folds">
                            <ReadingFolds />
                        </div>
                    </Later>
                </div>
                <div class="al-stage-picture" data-testid="lesson-picture">
                    // the words first: the picture is built in the next task
                    <Later>
                        {
                            let picture = picture.clone();
                            move || picture.run()
                        }
                    </Later>
                </div>
            </div>
        </section>
    }
}

/// Scrolls `row` sideways so that its `.al-selected` child is in view (no change when the
/// row does not scroll).
fn scroll_selected_into_row(row: &web_sys::HtmlDivElement) {
    let Ok(Some(tab)) = row.query_selector(".al-selected") else { return };
    let (tab_box, row_box) = (tab.get_bounding_client_rect(), row.get_bounding_client_rect());
    if tab_box.left() < row_box.left() || tab_box.right() > row_box.right() {
        let target = f64::from(row.scroll_left()) + tab_box.left() - row_box.left() - 8.0;
        row.set_scroll_left(target.max(0.0) as i32);
    }
}
