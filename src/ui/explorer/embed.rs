//! Embed mode (`?embed=1`): the selected step's figure and a one-line caption, for an
//! iframe in slides or a course page, with a link to the full page. A lesson step's embed
//! also has the step's title, words and question above the figure; its picture loses the
//! pointer hint, to leave the frame to the figure.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::trace::shape_text;
use crate::lessons::{meta_line, Lesson};
use crate::ui::explorer::tensors::{shown_step, TensorView};
use crate::ui::state::app_state::AppState;

/// The CSS px a lesson step's words take above the figure in a frame `width` px wide: the
/// meta line, the title and `chars` characters of words at about 7.5 px each, 19 px a line.
pub fn words_height(chars: usize, width: f64) -> f64 {
    let per_line = ((width - 16.0) / 7.5).max(20.0);
    let lines = (chars as f64 / per_line).ceil();
    18.0 + 26.0 + lines * 19.0 + 8.0
}

/// The embedded figure, under the lesson step's words when a lesson is open.
#[component]
pub fn EmbedView(
    /// The page's state.
    state: AppState,
    /// Every lesson, in order.
    lessons: Arc<Vec<Lesson>>,
) -> impl IntoView {
    let AppState { shown, view: view_state, viewport, viewport_height, lesson, .. } = state;
    let lessons = StoredValue::new(lessons);
    // the open lesson step's meta line, title and words, from the shown trace
    let words = Memo::new(move |_| {
        let (l, s) = lesson.get()?;
        lessons.with_value(|all| {
            let lesson = all.get(l)?;
            let step = lesson.steps.get(s)?;
            let (text, question) =
                shown.with(|t| t.as_ref().map(|t| (step.words(t), step.quiz.map(|q| (q.question)(t)))))?;
            Some((meta_line(lesson, s), step.title, text, question))
        })
    });
    // the figure fills the rest of the frame: a small matrix is drawn larger (up to 2.5×)
    let max_height = Signal::derive(move || {
        let above = words.with(|w| {
            w.as_ref().map_or(0.0, |(_, _, text, question)| {
                let chars = text.chars().count() + question.as_ref().map_or(0, |q| q.chars().count() + 60);
                words_height(chars, viewport.get())
            })
        });
        Some((viewport_height.get() - 140.0 - above).max(160.0))
    });
    let caption = move || {
        let trace = shown.get()?;
        let s = trace.step(shown_step(&trace, view_state.with(|v| v.step)))?;
        Some(format!("{} {}: {}", s.name, shape_text(&s.dims, &s.shape), s.op))
    };
    let full = move || {
        let href = crate::ui::platform::address::href();
        href.replace("&embed=1", "").replace("?embed=1&", "?").replace("?embed=1", "")
    };
    let header = move || {
        words.get().map(|(meta, title, text, question)| {
            // a question step is answered in the full page (the embed has no inputs)
            let question = question.map(|q| {
                view! {
                    <p class="al-embed-text" data-testid="embed-question">
                        <strong>"Question: "</strong>
                        {q}
                        " Answer it in the full page (the link below)."
                    </p>
                }
            });
            view! {
                <header class="al-embed-words" data-testid="embed-words">
                    <p class="al-lesson-meta">{meta}</p>
                    <h2 data-testid="embed-title">{title}</h2>
                    <p class="al-embed-text" data-testid="embed-text">
                        {text}
                    </p>
                    {question}
                </header>
            }
        })
    };
    view! {
        <main>
            {header} <figure class="al-embed-figure" data-testid="embed">
                <TensorView
                    state=state
                    column=Signal::derive(move || viewport.get() - 16.0)
                    compact=true
                    max_height=max_height
                />
                <figcaption data-testid="embed-caption">
                    {caption} " · " <a href=full target="_blank" rel="noopener">
                        "Open in Attention Lens"
                    </a>
                </figcaption>
            </figure>
        </main>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_take_more_room_in_a_narrow_frame() {
        // 400 characters in an 800 px frame: 104 a line, 4 lines
        assert_eq!(words_height(400, 800.0), 18.0 + 26.0 + 4.0 * 19.0 + 8.0);
        assert!(words_height(400, 375.0) > words_height(400, 800.0));
        assert_eq!(words_height(0, 800.0), 52.0);
    }
}
