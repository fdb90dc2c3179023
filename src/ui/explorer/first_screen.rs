//! The first screen's story under the header, in the explorer: a caption saying what to
//! look at in the weights (from [`crate::lessons::first_screen::caption`] on the live
//! trace, shown only while the weights step is selected) and the button that starts the
//! first lesson.

use leptos::prelude::*;

use crate::engine::StepName;
use crate::lessons;
use crate::lessons::glossary::{first_used_in, segments};

use crate::ui::explain::explained::Explained;
use crate::ui::state::app_state::AppState;
use crate::ui::state::settings::{scenario, Settings, DEFAULT_TEXT};

/// The caption a page opened without a link shows first: the default sentences and
/// settings, through the engine. index.html paints it before the WebAssembly arrives
/// (between its `first-screen caption` markers; a native test holds the two equal and,
/// run with `UPDATE_FIRST_SCREEN=1`, writes it there).
pub fn default_caption() -> Option<String> {
    let (s, _) = scenario(DEFAULT_TEXT, &Settings::default());
    let t = crate::engine::run(&s).ok()?;
    lessons::first_screen::caption(&t, 0)
}

/// What index.html paints for a lesson link (`?lesson=ID&ls=N`) before the WebAssembly
/// arrives: the lessons in order (the tabs), and for each step its meta line, title,
/// words and question, as the app writes them for the lesson's own vectors (and an
/// embed's words, `embed_text`, where they differ). Where the
/// step is the first of its lesson to use glossary terms, `parts` is the words cut at
/// them (even places plain words, odd places a term, as the app's term buttons), so the
/// painted paragraph is the app's to the pixel. It is `assets/lesson-words.json`, which
/// index.html fetches from its head for a lesson link; a native test holds the file equal
/// to this.
pub fn lesson_words_json() -> String {
    use serde_json::{json, Value};
    let lessons: Vec<Value> = lessons::lessons()
        .iter()
        .map(|lesson| {
            let steps: Vec<Value> = lesson
                .steps
                .iter()
                .enumerate()
                .map(|(s, step)| {
                    let trace = crate::engine::run(&step.scenario).ok();
                    let said = |f: fn(&crate::engine::Trace) -> String| trace.as_ref().map(f);
                    let text = said(step.narrate);
                    let mut out = json!({
                        "meta": lessons::meta_line(lesson, s),
                        "title": step.title,
                        "text": text,
                    });
                    if let Some(q) = step.quiz.and_then(|q| said(q.question)) {
                        out["question"] = json!(q);
                    }
                    // an embed's words, where they differ (a question step's without how
                    // to answer on the page, a step's written for the embed's picture)
                    if let Some(embedded) =
                        trace.as_ref().map(|t| step.embed_text(t)).filter(|e| Some(e) != text.as_ref())
                    {
                        out["embed_text"] = json!(embedded);
                    }
                    // the step's picture (assets/lesson-pictures), with its size so that
                    // the first paint reserves its place
                    if let Some(p) = crate::ui::heatmap::pictures::step_picture(lesson, s) {
                        out["picture"] = json!({
                            "src": format!("{}/{}", crate::ui::heatmap::pictures::DIR,
                                crate::ui::heatmap::pictures::file_name(lesson.id, s)),
                            "width": p.width,
                            "height": p.height,
                        });
                    }
                    let terms = first_used_in(lesson, s);
                    if let (Some(text), false) = (&text, terms.is_empty()) {
                        out["parts"] = json!(alternating(&segments(text, &terms)));
                    }
                    out
                })
                .collect();
            json!({ "id": lesson.id, "title": lesson.title, "steps": steps })
        })
        .collect();
    format!("{}\n", json!({ "lessons": lessons }))
}

/// `segments` as plain words and terms alternating, from plain words (an empty string
/// where a term comes first or two terms meet).
fn alternating(segments: &[(&str, Option<&'static lessons::glossary::Term>)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (words, term) in segments {
        if term.is_some() == out.len().is_multiple_of(2) {
            out.push(String::new());
        }
        out.push((*words).to_string());
    }
    out
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

/// The caption while the learner guesses a weight of the shown sentence.
const GUESSING: &str = "Which key does each token look at most? Guess the value in the explanation first; this line tells after Reveal.";

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
    let guessed = use_context::<Explained>();
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
            let t = t.as_ref()?;
            let batch = batch.min(t.sizes.b.saturating_sub(1));
            // the caption names the largest weights: not while the learner guesses one
            if guessed.is_some_and(|e| e.hides_step(StepName::Weights, batch)) {
                return Some(GUESSING.to_string());
            }
            lessons::first_screen::caption(t, batch)
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

    /// Whether the file at `path` (in the crate) holds `want`; with `UPDATE_FIRST_SCREEN`
    /// set, writes it there first.
    fn held_equal(path: &str, want: &str) -> bool {
        let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
        if std::env::var_os("UPDATE_FIRST_SCREEN").is_some() {
            std::fs::write(&path, want).unwrap();
        }
        std::fs::read_to_string(&path).is_ok_and(|have| have == want)
    }

    /// index.html paints the default first screen's caption before the WebAssembly
    /// arrives: the engine's words and numbers, none written by hand. When the engine or
    /// the caption changes, `UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` writes
    /// the new caption into index.html.
    #[test]
    fn index_html_paints_the_engines_first_caption() {
        let html = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/index.html")).unwrap();
        let caption = default_caption().expect("the default first screen has a caption");
        let want = with_caption(&html, &caption).expect("index.html has the caption markers");
        assert!(
            held_equal("index.html", &want),
            "index.html's first-screen caption is not the engine's \"{caption}\": run \
             UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen"
        );
    }

    /// `assets/lesson-words.json` is the engine's words for every lesson step
    /// (`UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` writes it).
    #[test]
    fn the_lesson_words_file_is_the_engines() {
        let json = lesson_words_json();
        assert!(
            held_equal("assets/lesson-words.json", &json),
            "assets/lesson-words.json is not the engine's: run UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen"
        );
        // every lesson, in order, and every step of it has its words; parts join to them
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        let all = parsed["lessons"].as_array().unwrap();
        let lessons = lessons::lessons();
        assert_eq!(all.len(), lessons.len());
        let mut with_terms = 0;
        for (lesson, got) in lessons.iter().zip(all) {
            assert_eq!(got["id"], lesson.id);
            let steps = got["steps"].as_array().unwrap();
            assert_eq!(steps.len(), lesson.steps.len());
            for (s, step) in steps.iter().enumerate() {
                let text = step["text"].as_str().unwrap_or_default();
                assert!(!text.is_empty(), "{} {s}", lesson.id);
                if let Some(parts) = step["parts"].as_array() {
                    with_terms += 1;
                    let parts: Vec<&str> = parts.iter().map(|p| p.as_str().unwrap()).collect();
                    assert_eq!(parts.concat(), text, "{} {s}", lesson.id);
                    let terms: Vec<&str> = parts.iter().skip(1).step_by(2).copied().collect();
                    let want = first_used_in(lesson, s);
                    let a_form = |t: &&str| want.iter().any(|w| w.forms.contains(t));
                    assert!(!terms.is_empty() && terms.iter().all(a_form), "{} {s}: {terms:?}", lesson.id);
                }
            }
        }
        assert!(with_terms > 5, "the steps that link terms carry them ({with_terms})");
    }

    #[test]
    fn alternating_starts_with_plain_words() {
        let t = &lessons::glossary::GLOSSARY[0];
        assert_eq!(alternating(&[("a ", None), ("x", Some(t)), (" b", None)]), ["a ", "x", " b"]);
        assert_eq!(alternating(&[("x", Some(t)), (" b", None)]), ["", "x", " b"]);
        assert_eq!(alternating(&[("x", Some(t)), ("y", Some(t))]), ["", "x", "", "y"]);
        assert_eq!(alternating(&[("only", None)]), ["only"]);
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
