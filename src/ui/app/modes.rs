//! The page's modes under the header: the Learn view, the open lesson's stage, the
//! challenges, the first screen, and the explorer under them.

use std::sync::Arc;

use leptos::prelude::*;

use crate::challenges::Challenge;
use crate::lessons::Lesson;
use crate::ui::app::lesson_nav::LessonNav;
use crate::ui::challenge::panel::ChallengeMode;
use crate::ui::explorer::first_screen::FirstScreen;
use crate::ui::explorer::view::Explorer;
use crate::ui::learn::settings::LearnSettings;
use crate::ui::learn::view::LearnView;
use crate::ui::lesson::stage::LessonStage;
use crate::ui::state::app_state::AppState;
use crate::ui::widgets::later::Later;

/// The open lesson's stage, or the challenges, or (in neither) the first screen.
#[component]
pub fn Modes(
    /// The page's state.
    state: AppState,
    /// Every lesson.
    all_lessons: Arc<Vec<Lesson>>,
    /// Opens and resets lesson steps.
    nav: LessonNav,
    /// Presenter mode.
    present: RwSignal<bool>,
    /// The open challenge's id.
    challenge: RwSignal<Option<String>>,
    /// A challenge imported whole.
    imported: RwSignal<Option<Challenge>>,
    /// The Learn view is open (then no first screen).
    learn: RwSignal<bool>,
    /// The Learn view's settings.
    learn_settings: RwSignal<LearnSettings>,
) -> impl IntoView {
    let viewport = state.viewport;
    let lesson = state.lesson;
    let first_lesson_title = all_lessons.first().map_or("", |l| l.title);
    let open_lesson = Memo::new(move |_| lesson.get().filter(|_| challenge.get().is_none()).map(|(l, _)| l));
    let stage = move || {
        open_lesson.get().and_then(|l| {
            all_lessons.get(l)?;
            Some(
                // the open lesson, not its step: a step of the same lesson is the stage's
                // to show, without building the stage again
                view! {
                    <LessonStage
                        state=state
                        all_lessons=all_lessons.clone()
                        l=l
                        on_go=nav.on_go
                        on_exit=nav.on_exit
                        edited=nav.edited
                        changed=nav.changed
                        on_reset=nav.on_reset
                        present=present
                    />
                },
            )
        })
    };
    let in_challenges = Memo::new(move |_| challenge.get().is_some());
    view! {
        {move || learn.get().then(|| view! { <LearnView settings=learn_settings viewport=viewport /> })}
        {stage}
        {move || {
            in_challenges
                .get()
                .then(|| {
                    // one ChallengeMode while in the mode (switching challenges does not rebuild it)
                    view! { <ChallengeMode open=challenge imported=imported /> }
                })
        }}
        {move || {
            (lesson.get().is_none() && challenge.get().is_none() && !learn.get())
                .then(|| {
                    view! {
                        <FirstScreen state=state first_lesson_title=first_lesson_title on_go=nav.on_go />
                    }
                })
        }}
    }
}

/// The explorer, outside presenter mode and the challenges; in a lesson it is built in a
/// later task than the lesson, and left out under a lesson whose pictures all come from a
/// recorded run ([`Lesson::shows_scenario`]).
#[component]
pub fn ExplorerBelow(
    /// The page's state.
    state: AppState,
    /// Every lesson.
    all_lessons: Arc<Vec<Lesson>>,
    /// Presenter mode.
    present: RwSignal<bool>,
    /// The open challenge's id.
    challenge: RwSignal<Option<String>>,
    /// The Learn view is open (then no explorer).
    learn: RwSignal<bool>,
) -> impl IntoView {
    let lesson = state.lesson;
    let in_lesson = Memo::new(move |_| lesson.with(Option::is_some));
    let scenario_shown = Memo::new(move |_| {
        lesson.get().is_none_or(|(l, _)| all_lessons.get(l).is_none_or(Lesson::shows_scenario))
    });
    move || {
        (!present.get() && challenge.get().is_none() && !learn.get() && scenario_shown.get()).then(|| {
            if in_lesson.get() {
                view! {
                    <Later tasks=3>
                        <Explorer state=state in_lesson=true />
                    </Later>
                }
                .into_any()
            } else {
                view! { <Explorer state=state in_lesson=false /> }.into_any()
            }
        })
    }
}
