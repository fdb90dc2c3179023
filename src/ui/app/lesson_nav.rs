//! Opening lesson steps: the callbacks the header, the stage and the first screen call,
//! and whether the open step's vectors differ from the lesson's own.

use std::sync::Arc;

use leptos::prelude::*;

use crate::lessons::Lesson;
use crate::ui::lesson::open::{self, is_changed, is_edited};
use crate::ui::state::settings::{Settings, ViewState};

/// What opens and resets lesson steps.
#[derive(Clone, Copy)]
pub struct LessonNav {
    /// Opens step s of lesson l, keeping the learner's edits within the lesson.
    pub on_go: Callback<(usize, usize)>,
    /// True while the open step's vectors differ from the lesson's own.
    pub edited: Memo<bool>,
    /// True while anything the learner can change (sentences, settings, vectors) differs
    /// from the open step's own.
    pub changed: Memo<bool>,
    /// "Reset this lesson": opens the step again without the learner's edits.
    pub on_reset: Callback<()>,
    /// Leaves the lessons.
    pub on_exit: Callback<()>,
}

impl LessonNav {
    /// Entering a lesson step sets the explorer's inputs to that step's scenario; the
    /// learner can then edit them, and the lesson's words follow the live trace. Within a
    /// lesson, the learner's edits to its vectors go along (Back and Next keep them);
    /// a fresh open drops them ("Reset this lesson").
    pub fn new(
        all_lessons: Arc<Vec<Lesson>>,
        text: RwSignal<String>,
        settings: RwSignal<Settings>,
        view_state: RwSignal<ViewState>,
        lesson: RwSignal<Option<(usize, usize)>>,
    ) -> Self {
        let open_step = {
            let all_lessons = all_lessons.clone();
            move |at: (usize, usize), fresh: bool| {
                let opened = settings.with_untracked(|st| {
                    open::open_step(&all_lessons, lesson.get_untracked(), st, at, fresh)
                });
                let Some(opened) = opened else { return };
                settings.set(opened.settings);
                text.set(opened.text);
                view_state.update(|v| {
                    v.step = opened.focus;
                    v.batch = opened.batch;
                });
                lesson.set(Some(at));
            }
        };
        let edited = {
            let all_lessons = all_lessons.clone();
            Memo::new(move |_| {
                let Some(at) = lesson.get() else { return false };
                settings.with(|st| is_edited(&all_lessons, at, st))
            })
        };
        let changed = {
            let all_lessons = all_lessons.clone();
            Memo::new(move |_| {
                let Some(at) = lesson.get() else { return false };
                text.with(|t| settings.with(|st| is_changed(&all_lessons, at, t, st)))
            })
        };
        let on_go = {
            let open_step = open_step.clone();
            Callback::new(move |at: (usize, usize)| open_step(at, false))
        };
        let on_reset = Callback::new(move |()| {
            if let Some(at) = lesson.get_untracked() {
                open_step(at, true)
            }
        });
        let on_exit = Callback::new(move |()| lesson.set(None));
        Self { on_go, edited, changed, on_reset, on_exit }
    }
}
