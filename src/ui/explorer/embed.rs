//! Embed mode (`?embed=1`): the selected step's figure and a one-line caption, for an
//! iframe in slides or a course page, with a link to the full page. A lesson step's embed
//! also has the step's title, words and question above the figure, and the step's own
//! picture (the decode view for the KV cache, the tiles view for online softmax) where the
//! lesson draws one in place of the heatmaps; its picture loses the pointer hint, to leave
//! the frame to the figure.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::trace::shape_text;
use crate::engine::Trace;
use crate::lessons::{meta_line, Extra, Lesson, MakeAside};
use crate::ui::explorer::tensors::{shown_step, TensorView};
use crate::ui::platform::first_paint;
use crate::ui::state::app_state::AppState;
use crate::ui::tiles::chosen::ChosenBlock;
use crate::ui::widgets::unbroken::unbroken;

/// The CSS px the link back and the frame's margins take under the figure.
const LINK: f64 = 44.0;
/// The share of the frame's width a lesson step's picture takes when the step's table is
/// beside it (lesson.css's `.al-embed-beside`); the table has the rest.
const FIGURE_SHARE: f64 = 0.55;
/// The CSS px a card's chrome takes around its canvas in a lesson step's embed: its title,
/// the axis titles (three lines over a map of two columns), its border and padding.
const CARD_CHROME: f64 = 106.0;

/// The room a lesson step's picture has in a frame `height` px tall whose words take
/// `above` px: what the words and the link leave, at least 120 px (the picture's box
/// scrolls on its own past that, so that the frame does not).
pub fn picture_room(height: f64, above: f64) -> f64 {
    (height - above - LINK).max(120.0)
}

/// The CSS px a lesson step's words take above the figure in a frame `width` px wide: the
/// meta line, the title and `chars` characters of words at about 7.5 px each, 19 px a line.
pub fn words_height(chars: usize, width: f64) -> f64 {
    let per_line = ((width - 16.0) / 7.5).max(20.0);
    let lines = (chars as f64 / per_line).ceil();
    18.0 + 26.0 + lines * 19.0 + 8.0
}

/// A lesson step's picture that replaces the heatmaps ([`Extra::replaces_heatmaps`]), for
/// the state and a column width; `None` for the other extras. The lesson folder draws it
/// (`lesson::stage::replacing_picture`); the page hands it in, as this folder may not
/// import that one.
pub type ReplacingPicture = fn(Extra, AppState, Signal<f64>) -> Option<AnyView>;

/// A lesson step's aside table for the shown trace, beside the embed's picture, for a step
/// that shows it there ([`crate::lessons::LessonStep::embed_aside`]); handed in by the page
/// like [`ReplacingPicture`].
pub type EmbedAside = fn(Signal<Option<Arc<Trace>>>, Signal<Option<MakeAside>>) -> AnyView;

/// The embedded figure, under the lesson step's words when a lesson is open.
#[component]
pub fn EmbedView(
    /// The page's state.
    state: AppState,
    /// Every lesson, in order.
    lessons: Arc<Vec<Lesson>>,
    /// Draws a lesson step's own picture where the lesson replaces the heatmaps.
    replacing: ReplacingPicture,
    /// Draws a step's aside table under its words, where the step shows it there.
    aside: EmbedAside,
) -> impl IntoView {
    let AppState { shown, view: view_state, viewport, viewport_height, lesson, .. } = state;
    let lessons = StoredValue::new(lessons);
    // the block the learner sets in a step's tiles view, which the step's words follow
    let chosen = ChosenBlock::default();
    provide_context(chosen);
    // the open lesson step's meta line, title and words, from the shown trace
    let words = Memo::new(move |_| {
        let (l, s) = lesson.get()?;
        let block = chosen.on(Some((l, s)));
        lessons.with_value(|all| {
            let lesson = all.get(l)?;
            let step = lesson.steps.get(s)?;
            let (text, question) = shown.with(|t| {
                t.as_ref().map(|t| {
                    let question = step.quiz.filter(|_| step.fits(t)).map(|q| (q.question)(t));
                    (step.embed_text_at(t, block), question)
                })
            })?;
            Some((meta_line(lesson, s), step.title, text, question))
        })
    });
    // the step's table beside its picture, where it has one there: the picture keeps the
    // room the words leave, in the frame's left part
    let table = Signal::derive(move || {
        let (l, s) = lesson.get()?;
        lessons.with_value(|all| {
            let step = all.get(l)?.steps.get(s)?;
            // (a table about the old places is left out with the words)
            step.embed_aside.filter(|_| shown.with(|t| t.as_ref().is_none_or(|t| step.fits(t))))
        })
    });
    // the words' height as drawn, once they are (until then, estimated from their length)
    let header = NodeRef::<leptos::html::Header>::new();
    let measured = RwSignal::new(None::<f64>);
    Effect::new(move |_| {
        words.track();
        viewport.track();
        measured.set(header.get().map(|el| el.get_bounding_client_rect().height()));
    });
    let above = move || {
        measured.get().unwrap_or_else(|| {
            words.with(|w| {
                w.as_ref().map_or(0.0, |(_, _, text, question)| {
                    let chars =
                        text.chars().count() + question.as_ref().map_or(0, |q| q.chars().count() + 60);
                    words_height(chars, viewport.get())
                })
            })
        })
    };
    // the figure fills the rest of the frame: a small matrix is drawn larger (up to 2.5×)
    let in_lesson = move || words.with(Option::is_some);
    let room = move || picture_room(viewport_height.get(), above());
    let max_height = Signal::derive(move || {
        Some(if in_lesson() {
            (room() - CARD_CHROME).max(100.0)
        } else {
            (viewport_height.get() - 140.0).max(160.0)
        })
    });
    // the step's own picture, where the lesson draws one in place of the heatmaps
    let kind = Memo::new(move |_| {
        let (l, s) = lesson.get()?;
        lessons.with_value(|all| all.get(l)?.steps.get(s).map(|x| x.extra)).filter(|e| e.replaces_heatmaps())
    });
    let beside = move || table.with(Option::is_some);
    let column = Signal::derive(move || (viewport.get() - 16.0) * if beside() { FIGURE_SHARE } else { 1.0 });
    let figure = move || {
        kind.get().and_then(|k| replacing(k, state, column)).unwrap_or_else(|| {
            view! { <TensorView state=state column=column compact=true max_height=max_height /> }.into_any()
        })
    };
    // a lesson step's picture has the room the words leave; one taller than that (the
    // decode view's panel, heads that stack) scrolls in its own box, so that the frame
    // does not and the link back stays in view
    let box_style = move || in_lesson().then(|| format!("max-height: {:.0}px", room()));
    // the caption names the heatmap's step; a replacing picture has its own titles
    let caption = move || {
        if kind.get().is_some() {
            return None;
        }
        let trace = shown.get()?;
        step_caption(&trace, view_state.with(|v| v.step))
    };
    let full = move || crate::ui::state::url::without_key(&crate::ui::platform::address::href(), "embed");
    let text_ref = NodeRef::<leptos::html::P>::new();
    let question_ref = NodeRef::<leptos::html::P>::new();
    let caption_ref = NodeRef::<leptos::html::Figcaption>::new();
    adopt_first_paint(words, text_ref, question_ref, caption_ref);
    let header = move || {
        words.get().map(|(meta, title, text, question)| {
            let no_text = text.is_empty();
            // a question step is answered in the full page (the embed has no inputs)
            let question = question.map(|q| {
                view! {
                    <p class="al-embed-text" data-testid="embed-question" node_ref=question_ref>
                        <strong>"Question: "</strong>
                        {unbroken(&q)}
                        " Answer it in the full page (the link below)."
                    </p>
                }
            });
            view! {
                <header class="al-embed-words" data-testid="embed-words" node_ref=header>
                    <p class="al-lesson-meta">{meta}</p>
                    <h2 data-testid="embed-title">{title}</h2>
                    // a question step whose words only said how to answer has none here
                    <p class="al-embed-text" data-testid="embed-text" node_ref=text_ref hidden=no_text>
                        {unbroken(&text)}
                    </p>
                    {question}
                </header>
            }
        })
    };
    view! {
        <main class:al-embed-lesson=move || {
            words.with(Option::is_some)
        }>
            {header} <figure class="al-embed-figure" data-testid="embed">
                <div class:al-embed-scroll=in_lesson class:al-embed-beside=beside style=box_style>
                    <div class="al-embed-main">{figure}</div>
                    {aside(shown.into(), table)}
                </div>
                <figcaption data-testid="embed-caption" node_ref=caption_ref>
                    <span class="al-embed-step">{move || caption().map(|c| format!("{c} · "))}</span>
                    <a href=full target="_blank" rel="noopener">
                        "Open in Attention Lens"
                    </a>
                </figcaption>
            </figure>
        </main>
    }
}

/// The figure's caption in an explorer embed with trace step `step` selected: the step
/// shown (the weights' for a step this trace has not), its shape and its operation. The
/// first-paint worker paints it too (`ui::explorer::first_screen::link_first_paint`).
pub fn step_caption(trace: &Trace, step: crate::engine::StepName) -> Option<String> {
    let s = trace.step(shown_step(trace, step))?;
    Some(format!("{} {}: {}", s.name, shape_text(&s.dims, &s.shape), s.op))
}

/// The words and question index.html painted first (a lesson step's embed link), or the
/// figure's caption (an explorer embed), taken over in place once the app has drawn its own; when the words change after that (a
/// block set in the tiles view), the app's own nodes again.
fn adopt_first_paint<T: Send + Sync + 'static>(
    words: Memo<T>,
    text_ref: NodeRef<leptos::html::P>,
    question_ref: NodeRef<leptos::html::P>,
    caption_ref: NodeRef<leptos::html::Figcaption>,
) where
    Memo<T>: Track,
{
    Effect::new(move |_| {
        words.track();
        first_paint::settle();
        if let Some(p) = text_ref.get() {
            first_paint::adopt("embed-text", &p);
        }
        if let Some(p) = question_ref.get() {
            first_paint::adopt("embed-question", &p);
        }
        // an explorer embed's caption, which the first-paint worker computed
        if let Some(c) = caption_ref.get() {
            first_paint::adopt("embed-caption", &c);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picture_gets_what_the_words_leave() {
        // 800 × 500 with 150 px of words
        assert_eq!(picture_room(500.0, 150.0), 500.0 - 150.0 - LINK);
        // more words, a smaller picture, never under 120 px
        assert!(picture_room(500.0, 200.0) < picture_room(500.0, 150.0));
        assert_eq!(picture_room(300.0, 400.0), 120.0);
    }

    #[test]
    fn the_words_take_more_room_in_a_narrow_frame() {
        // 400 characters in an 800 px frame: 104 a line, 4 lines
        assert_eq!(words_height(400, 800.0), 18.0 + 26.0 + 4.0 * 19.0 + 8.0);
        assert!(words_height(400, 375.0) > words_height(400, 800.0));
        assert_eq!(words_height(0, 800.0), 52.0);
    }
}
