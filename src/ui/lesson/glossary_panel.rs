//! The reading layer under a lesson step's words: the step's words with the
//! first use of each glossary term in the lesson as a button that opens its meaning
//! below the words, the whole glossary, and the sources the lessons follow. The pure
//! parts (which terms a step uses first, where) are [`crate::lessons::glossary`]'s.

use leptos::prelude::*;

use crate::lessons::claims::{SENTENCES_CHANGED, STORY_CHANGED};
use crate::lessons::glossary::{segments, Term, GLOSSARY};
use crate::lessons::sources::{cited_pieces, PAPERS, SOURCES};
use crate::lessons::{meta_line, Lesson};
use crate::ui::widgets::unbroken::unbroken;

/// The id of the paragraph that shows the open term's meaning (the term buttons'
/// `aria-controls`).
const DEF_ID: &str = "al-term-def";

/// A step's words, with `terms` (the glossary terms this step is the first of its lesson
/// to use) as buttons at their first use. A click opens the term's meaning in `open`.
/// Words that start with [`STORY_CHANGED`] show that warning as a note of its own, set
/// apart from the lesson's words it warns about.
#[component]
pub fn LessonWords(
    /// The step's words.
    text: String,
    /// The terms to link.
    terms: Vec<&'static Term>,
    /// The term whose meaning is shown, if any.
    open: RwSignal<Option<&'static str>>,
    /// Opens the step again on its own sentences, offered when the learner's no longer fit
    /// it ([`SENTENCES_CHANGED`]).
    restore: Callback<()>,
    /// Opens the step again on its own numbers, sentences and settings, the learner's
    /// vectors dropped, offered when the words' story changed ([`STORY_CHANGED`]).
    reset: Callback<()>,
) -> impl IntoView {
    let (warning, text) = match text.strip_prefix(STORY_CHANGED) {
        Some(rest) => (Some(STORY_CHANGED), rest.to_string()),
        None => (None, text),
    };
    let warning = warning.map(|w| {
        view! {
            <strong class="al-story-changed" data-testid="story-changed">
                {w}
                {open_again("reset-step", "Use this step's own numbers", reset)}
            </strong>
        }
    });
    let restore = text
        .starts_with(SENTENCES_CHANGED)
        .then(|| open_again("restore-sentences", "Use this step's sentences", restore));
    // a tutorial named in running text links to its Sources entry at its first mention,
    // as in the step header (papers and models, named often, stay plain words)
    let mut linked: Vec<&'static str> = Vec::new();
    let words = segments(&text, &terms)
        .into_iter()
        .map(|(words, term)| match term {
            None => cited_pieces(words)
                .into_iter()
                .map(|(piece, id)| {
                    match id.filter(|id| SOURCES.iter().any(|s| s.id == *id) && !linked.contains(id)) {
                        None => unbroken(piece),
                        Some(id) => {
                            linked.push(id);
                            source_link(piece, id)
                        }
                    }
                })
                .collect_view()
                .into_any(),
            Some(term) => {
                let name = term.term;
                view! {
                    <button
                        type="button"
                        class="al-term"
                        data-testid="term-link"
                        data-term=name
                        aria-controls=DEF_ID
                        aria-expanded=move || if open.get() == Some(name) { "true" } else { "false" }
                        title=format!("What \"{name}\" means")
                        on:click=move |_| {
                            open.update(|o| *o = if *o == Some(name) { None } else { Some(name) })
                        }
                    >
                        {words.to_string()}
                    </button>
                }
                .into_any()
            }
        })
        .collect_view();
    view! {
        {warning}
        {words}
        {restore}
    }
}

/// A button after a note on the step's words that opens the step again (`run`), after a
/// space.
fn open_again(testid: &'static str, label: &'static str, run: Callback<()>) -> impl IntoView {
    view! {
        " "
        <button type="button" class="al-restore-sentences" data-testid=testid on:click=move |_| run.run(())>
            {label}
        </button>
    }
}

/// The open term's meaning, under the words (nothing while no term is open).
#[component]
pub fn TermMeaning(
    /// The term whose meaning is shown.
    open: RwSignal<Option<&'static str>>,
) -> impl IntoView {
    move || {
        let term = open.get().and_then(|name| GLOSSARY.iter().find(|t| t.term == name))?;
        Some(view! {
            <p class="al-term-def" id=DEF_ID role="note" data-testid="term-def">
                <b>{term.term}</b>
                ": "
                {term.meaning}
                " "
                <button
                    type="button"
                    class="al-link"
                    aria-label=format!("Close the meaning of {}", term.term)
                    on:click=move |_| open.set(None)
                >
                    "✕"
                </button>
            </p>
        })
    }
}

/// A step's meta line ([`meta_line`]: lesson, what it follows, step k of n) with each
/// source it names as a link to that source's entry in the Sources list below the words.
pub fn meta_with_links(lesson: &Lesson, s: usize) -> AnyView {
    let line = meta_line(lesson, s);
    // the sources are named after " · follows ", in the lesson's `seeds`
    let (before, rest) = line.split_at(line.find(lesson.seeds).unwrap_or(line.len()));
    let (seeds, after) = rest.split_at(lesson.seeds.len().min(rest.len()));
    let links = cited_pieces(seeds)
        .into_iter()
        .map(|(piece, id)| match id {
            None => piece.to_string().into_any(),
            Some(id) => source_link(piece, id),
        })
        .collect_view();
    view! {
        {before.to_string()}
        {links}
        {after.to_string()}
    }
    .into_any()
}

/// `piece`, the name of Sources entry `id`, as a link that opens the entry.
fn source_link(piece: &str, id: &'static str) -> AnyView {
    view! {
        <a
            class="al-source-link"
            data-testid="source-link"
            data-source=id
            href=format!("#{id}")
            on:click=move |ev| {
                ev.prevent_default();
                open_source(id);
            }
        >
            {piece.to_string()}
        </a>
    }
    .into_any()
}

/// Opens the Sources fold and brings entry `id` into view, focused.
fn open_source(id: &str) {
    use wasm_bindgen::JsCast;
    let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) else {
        return;
    };
    if let Ok(Some(details)) = el.closest("details") {
        let _ = details.set_attribute("open", "");
    }
    el.scroll_into_view();
    if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
        let _ = el.focus();
    }
}

/// The glossary and the sources, each folded: what a learner opens to look a word up or
/// to see which tutorial a lesson follows.
#[component]
pub fn ReadingFolds() -> impl IntoView {
    let entries = GLOSSARY
        .iter()
        .map(|t| {
            view! {
                <dt>{t.term}</dt>
                <dd>{t.meaning}</dd>
            }
        })
        .collect_view();
    let sources = SOURCES
        .iter()
        .map(|s| {
            view! {
                <li id=s.id tabindex="-1">
                    <b>{s.name}</b>
                    {format!(" ({}): {}.", s.by, s.contributes)}
                </li>
            }
        })
        .collect_view();
    let papers = PAPERS
        .iter()
        .map(|p| {
            view! {
                <li id=p.id tabindex="-1">
                    <a href=p.url target="_blank" rel="noopener">
                        {p.name}
                    </a>
                    {format!(": {}.", p.contributes)}
                </li>
            }
        })
        .collect_view();
    view! {
        <details class="al-reading" data-testid="glossary">
            <summary>"Glossary"</summary>
            <dl class="al-glossary">{entries}</dl>
        </details>
        <details class="al-reading" data-testid="sources">
            <summary>"Sources"</summary>
            <p class="al-reading-intro">
                "The lessons follow four tutorials and check their numbers against them:"
            </p>
            <ul class="al-sources">{sources}</ul>
            <p class="al-reading-intro">"The later lessons quote these papers and model reports:"</p>
            <ul class="al-sources" data-testid="papers">
                {papers}
            </ul>
        </details>
    }
}
