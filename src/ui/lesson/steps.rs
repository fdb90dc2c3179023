//! Moving through a lesson's steps: Back, Next and "Next lesson" under the words, and the
//! keys (← →, PageDown/PageUp, space, Home, End; Esc and F in presenter mode).

use leptos::prelude::*;

use crate::lessons::Lesson;
use crate::ui::lesson::keys::{key_action, step_after, target_focus, KeyAction};
use crate::ui::platform::screen;

/// The open step and how to move it: the lessons' step counts, the position, and the
/// callback that opens a step.
#[derive(Clone, Copy)]
pub struct Steps {
    counts: StoredValue<Vec<usize>>,
    titles: StoredValue<Vec<&'static str>>,
    /// The open lesson and step.
    pub position: Signal<(usize, usize)>,
    /// Opens a lesson step.
    pub on_go: Callback<(usize, usize)>,
}

impl Steps {
    /// The steps of `lessons`, at `position`.
    pub fn new(
        lessons: &[Lesson],
        position: Signal<(usize, usize)>,
        on_go: Callback<(usize, usize)>,
    ) -> Self {
        let counts = StoredValue::new(lessons.iter().map(|l| l.steps.len()).collect::<Vec<usize>>());
        let titles = StoredValue::new(lessons.iter().map(|l| l.title).collect::<Vec<_>>());
        Self { counts, titles, position, on_go }
    }

    /// How many steps lesson `l` has (1 for a lesson that is not there).
    pub fn n_steps(self, l: usize) -> usize {
        self.counts.with_value(|c| c.get(l).copied().unwrap_or(1))
    }

    /// Moves `delta` steps within the open lesson.
    pub fn go(self, delta: isize) {
        let (l, s) = self.position.get_untracked();
        let next = step_after(s, delta, self.n_steps(l));
        if next != s {
            self.on_go.run((l, next));
        }
    }

    /// Goes to the open lesson's first or (`last`) last step.
    fn edge(self, last: bool) {
        let (l, s) = self.position.get_untracked();
        let to = if last { self.n_steps(l).saturating_sub(1) } else { 0 };
        if to != s {
            self.on_go.run((l, to));
        }
    }

    /// The title of lesson `l`, if there is one.
    fn title(self, l: usize) -> Option<&'static str> {
        self.titles.with_value(|t| t.get(l).copied())
    }
}

/// ← →, PageDown/PageUp (a presentation remote), space, Home and End move through the
/// steps, unless a field or a heatmap has them (lesson/keys.rs); Esc leaves presenter
/// mode, F goes full screen. Listens for as long as the calling component lives.
pub fn listen_for_keys(steps: Steps, present: RwSignal<bool>) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.alt_key() || ev.ctrl_key() || ev.meta_key() {
            return;
        }
        match key_action(&ev.key(), ev.shift_key(), target_focus(&ev), present.get_untracked()) {
            Some(KeyAction::Step { by, consume }) => {
                if consume {
                    ev.prevent_default();
                }
                steps.go(by);
            }
            Some(KeyAction::Edge { last }) => {
                ev.prevent_default();
                steps.edge(last);
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
}

/// Back and Next; on the last step, a button to the next lesson (here and in presenter
/// mode, where the lesson tabs are hidden): no dead end. A double click counts once (the
/// lesson panel swallows its second click: [`crate::ui::platform::focus::swallow_repeated_clicks`]).
#[component]
pub fn LessonStepNav(
    /// The open step and how to move it.
    steps: Steps,
) -> impl IntoView {
    let Steps { position, on_go, .. } = steps;
    view! {
        <div class="al-lesson-nav">
            <button
                type="button"
                data-testid="lesson-back"
                on:click=move |_| steps.go(-1)
                prop:disabled=move || position.get().1 == 0
            >
                "← Back"
            </button>
            <button
                type="button"
                data-testid="lesson-next"
                on:click=move |_| steps.go(1)
                prop:disabled=move || {
                    let (l, s) = position.get();
                    s + 1 >= steps.n_steps(l)
                }
            >
                "Next →"
            </button>
            {move || {
                let (l, s) = position.get();
                steps
                    .title(l + 1)
                    .filter(|_| s + 1 >= steps.n_steps(l))
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
        </div>
    }
}
