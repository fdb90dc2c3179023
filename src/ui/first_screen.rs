//! The first screen's story under the header, in the explorer: a caption saying what to
//! look at in the weights (from [`crate::lessons::first_screen::caption`] on the live
//! trace, shown only while the weights step is selected) and the button that starts the
//! first lesson.

use leptos::prelude::*;

use crate::engine::StepName;
use crate::lessons;

use super::app_state::AppState;
use super::settings::{scenario, Settings, DEFAULT_TEXT};

/// The caption a page opened without a link shows first: the default sentences and
/// settings, through the engine. index.html paints it before the WebAssembly arrives
/// (between its `first-screen caption` markers; a native test holds the two equal and,
/// run with `UPDATE_FIRST_SCREEN=1`, writes it there).
pub fn default_caption() -> Option<String> {
    let (s, _) = scenario(DEFAULT_TEXT, &Settings::default());
    let t = crate::engine::run(&s).ok()?;
    lessons::first_screen::caption(&t, 0)
}

/// `text` for an HTML text node: `&`, `<` and `>` escaped.
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The markers around the caption in index.html.
const BEGIN: &str = "<!-- first-screen caption: begin -->";
const END: &str = "<!-- first-screen caption: end -->";

/// `html` with the text between the caption markers replaced by `caption`, or `None`
/// when the markers are missing.
pub fn with_caption(html: &str, caption: &str) -> Option<String> {
    let start = html.find(BEGIN)? + BEGIN.len();
    let end = start + html[start..].find(END)?;
    Some(format!("{}{}{}", &html[..start], html_text(caption), &html[end..]))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// index.html paints the default first screen's caption before the WebAssembly
    /// arrives: the engine's words and numbers, none written by hand. When the engine or
    /// the caption changes, `UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` writes
    /// the new caption into index.html.
    #[test]
    fn index_html_paints_the_engines_first_caption() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/index.html");
        let html = std::fs::read_to_string(path).unwrap();
        let caption = default_caption().expect("the default first screen has a caption");
        let want = with_caption(&html, &caption).expect("index.html has the caption markers");
        if std::env::var_os("UPDATE_FIRST_SCREEN").is_some() {
            std::fs::write(path, &want).unwrap();
            return;
        }
        assert!(
            html == want,
            "index.html's first-screen caption is not the engine's \"{caption}\": run \
             UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen"
        );
    }

    #[test]
    fn the_caption_goes_between_the_markers_escaped() {
        let html = format!("<p>{BEGIN}old{END}</p>");
        assert_eq!(
            with_caption(&html, "a <pad> & b").unwrap(),
            format!("<p>{BEGIN}a &lt;pad&gt; &amp; b{END}</p>")
        );
        assert_eq!(with_caption("<p>no markers</p>", "x"), None);
    }
}
