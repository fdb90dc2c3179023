//! The first screen's story under the header, in the explorer: a caption saying what to
//! look at in the weights (from [`crate::lessons::first_screen::caption`] on the live
//! trace, shown only while the weights step is selected) and the button that starts the
//! first lesson.

use leptos::prelude::*;

use crate::engine::StepName;
use crate::lessons;

use super::app_state::AppState;

/// The caption and the "Start the lesson" button.
#[component]
pub fn FirstScreen(
    /// The page's state.
    state: AppState,
    /// The first lesson's title.
    first_lesson_title: &'static str,
    /// Opens a lesson step (the button opens the first lesson's first step).
    on_go: Callback<(usize, usize)>,
) -> impl IntoView {
    let AppState { lesson, view: view_state, shown, .. } = state;
    // The first screen's caption: what to look at in the weights, from the live trace.
    let caption = move || {
        if lesson.get().is_some() {
            return None;
        }
        let (step, batch) = view_state.with(|v| (v.step, v.batch));
        if step != StepName::Weights {
            return None;
        }
        shown.with(|t| {
            t.as_ref().and_then(|t| lessons::first_screen::caption(t, batch.min(t.sizes.b.saturating_sub(1))))
        })
    };
    view! {
        <div class="al-story">
            {move || {
                caption()
                    .map(|c| {
                        view! {
                            <p class="al-caption" data-testid="caption" aria-live="polite">
                                {c}
                            </p>
                        }
                    })
            }}
            <button
                type="button"
                class="al-start"
                data-testid="start-lesson"
                on:click=move |_| on_go.run((0, 0))
            >
                {format!("Start the lesson: {first_lesson_title}")}
            </button>
        </div>
    }
}
