//! The lessons mode: the current step's words beside its picture, the tabs
//! ([`crate::ui::lesson::tabs`]), Back/Next and the keys
//! ([`crate::ui::lesson::steps`]), the step's question
//! ([`crate::ui::lesson::quiz`]) and the tools
//! ([`crate::ui::lesson::tools`]). The extras under the words are components of their own:
//! [`crate::ui::lesson::embedding_editor`], [`crate::ui::lesson::embedding_plot`], [`crate::ui::lesson::mask_conventions`].

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::lessons::glossary::{first_used_in, Term};
use crate::lessons::Lesson;

use crate::lessons::check::check_yourself;
use crate::ui::explain::explained::Explained;
use crate::ui::lesson::check_yourself::CheckYourself;
use crate::ui::lesson::glossary_panel::{meta_with_links, LessonWords, ReadingFolds, TermMeaning};
use crate::ui::lesson::quiz::QuizView;
use crate::ui::lesson::steps::{listen_for_keys, LessonStepNav, Steps};
use crate::ui::lesson::tabs::{numbered, LessonTabs};
use crate::ui::lesson::tools::LessonTools;
use crate::ui::tiles::chosen::ChosenBlock;
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
    edited: Memo<bool>,
    /// True while the sentences, settings or vectors differ from the step's own.
    changed: Memo<bool>,
    /// Puts the open step's own vectors back ("Reset this lesson").
    on_reset: Callback<()>,
    /// Presenter mode: one step per screen, large type.
    present: RwSignal<bool>,
    /// The step whose question has been answered, if it is the open one.
    revealed: RwSignal<Option<(usize, usize)>>,
    /// The table of the numbers the words quote, built with them (later, a phone's picture would jump).
    #[prop(into)]
    aside: ViewFn,
    /// What goes under the tools (editors, tables of conventions).
    #[prop(into)]
    extras: ViewFn,
    /// The picture the words talk about.
    #[prop(into)]
    picture: ViewFn,
) -> impl IntoView {
    let l3 = StoredValue::new(lessons.clone());
    let steps = Steps::new(&lessons, position, on_go);
    listen_for_keys(steps, present);

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
    // while the learner guesses a cell's value, the words must not name it
    let explained = use_context::<Explained>();
    // the words of a step with a tiles view follow the block the learner set there
    let chosen = use_context::<ChosenBlock>();
    let again = Callback::new(move |()| on_go.run(position.get_untracked()));
    let text = move || {
        let step = current()?;
        let (l, s) = position.get();
        let guessing = explained.is_some_and(|e| e.guessed().is_some());
        let block = chosen.and_then(|c| c.on(Some((l, s))));
        let words = trace.with(|t| {
            t.as_ref()
                .map(|t| if guessing { step.words_guessing_at(t, block) } else { step.words_at(t, block) })
        })?;
        Some(
            view! { <LessonWords text=words terms=terms_here(l, s) open=open_term restore=again reset=on_reset /> },
        )
    };
    // (the names, so that the tools, built a task later, can build the menu's options)
    let names: Vec<String> = lessons.iter().enumerate().map(|(i, lesson)| numbered(i, lesson)).collect();
    let header = step_header(lessons.clone(), position);
    // a lesson of recorded runs has no scenario the explorer could open
    let explorable = {
        let lessons = lessons.clone();
        Signal::derive(move || lessons.get(position.get().0).is_none_or(Lesson::shows_scenario))
    };
    // the lesson's check-yourself, under its last step (not projected in presenter mode)
    let check = {
        let lessons = lessons.clone();
        move || {
            let (l, s) = position.get();
            let lesson = lessons.get(l)?;
            (s + 1 == lesson.steps.len() && !present.get())
                .then(|| view! { <CheckYourself questions=check_yourself(lesson.id) /> })
        }
    };
    let quiz = step_quiz(l3, trace, position, revealed);
    // a double click's second click moves nothing and answers nothing (see the function)
    let root = NodeRef::<leptos::html::Main>::new();
    root.on_load(|el| crate::ui::platform::focus::swallow_repeated_clicks(&el));
    // the page's main landmark in a lesson (the explorer under it builds none here)
    view! {
        <main
            node_ref=root
            class="al-lesson"
            aria-label="Lesson"
            data-testid="lesson"
            class:al-presenting=move || present.get()
        >
            <LessonTabs lessons=lessons position=position on_go=on_go />
            <div class="al-stage">
                <div class="al-stage-words">
                    // presenting, Back and Next sit above the step, where a lecturer's
                    // pointer finds them on every step; reading, they follow the words
                    {move || present.get().then(|| view! { <LessonStepNav steps=steps /> })} {header}
                    <p class="al-lesson-text" data-testid="lesson-text" aria-live="polite">
                        {text}
                    </p> <TermMeaning open=open_term /> {quiz}
                    {move || (!present.get()).then(|| view! { <LessonStepNav steps=steps /> })}
                    {move || aside.run()} <Later tasks=2>
                        // the tools after the picture (on a phone they come under it):
                        // built first, they would be pushed down when it arrives
                        <LessonTools
                            names=names.clone()
                            position=position
                            on_go=on_go
                            on_exit=on_exit
                            explorable=explorable
                            edited=edited.into()
                            changed=changed.into()
                            on_reset=on_reset
                            present=present
                        />
                        <div class="al-stage-extras">
                            {
                                let extras = extras.clone();
                                move || extras.run()
                            }
                        </div>
                        {check.clone()}
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
        </main>
    }
}

/// The open step's question, if it asks one and the learner's sentences fit the step (a
/// question about words they moved is left out with the words).
fn step_quiz(
    all: StoredValue<Arc<Vec<Lesson>>>,
    trace: Signal<Option<Arc<Trace>>>,
    position: Signal<(usize, usize)>,
    revealed: RwSignal<Option<(usize, usize)>>,
) -> impl Fn() -> Option<AnyView> + Clone {
    let step = move || {
        let (l, s) = position.get();
        all.with_value(|all| all.get(l).and_then(|lesson| lesson.steps.get(s)).cloned())
    };
    // (a memo: the question is built again when this flips, not on every edit)
    let fits =
        Memo::new(move |_| step().is_none_or(|s| trace.with(|t| t.as_ref().is_none_or(|t| s.fits(t)))));
    move || {
        let quiz = step()?.quiz.filter(|_| fits.get())?;
        Some(view! { <QuizView quiz=quiz trace=trace position=position revealed=revealed /> }.into_any())
    }
}

/// The open step's meta line (lesson, source, step k of n) and its title.
fn step_header(lessons: Arc<Vec<Lesson>>, position: Signal<(usize, usize)>) -> impl Fn() -> Option<AnyView> {
    move || {
        let (l, s) = position.get();
        let lesson = lessons.get(l)?;
        let step = lesson.steps.get(s)?;
        Some(
            view! {
                <p class="al-lesson-meta" data-testid="lesson-meta">
                    {meta_with_links(lesson, s)}
                </p>
                <h2 data-testid="lesson-step-title">{step.title}</h2>
            }
            .into_any(),
        )
    }
}
