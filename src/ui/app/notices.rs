//! The page's notices under the header: what the link could not say, what was cut to
//! the page's limits, why the address bar cannot hold the scenario, "Computing…" while
//! the engine worker works, the stale-picture note, and the engine's error about the
//! scenario as a whole or its embeddings (the other errors are shown by their control).

use attention_worker::RunError;
use leptos::prelude::*;

use crate::engine::error::Field;

use crate::ui::state::app_state::Run;

/// The "Computing…" notice, while the engine worker computes the new pictures.
#[component]
pub fn ComputingNote(
    /// True while the worker computes.
    computing: Memo<bool>,
) -> impl IntoView {
    move || {
        computing.get().then(|| {
            view! {
                <p class="al-notice al-computing" data-testid="computing">
                    <span class="al-spinner" aria-hidden="true"></span>
                    "Computing the new pictures… the ones below are from the previous input."
                </p>
            }
        })
    }
}

/// Every notice of the page, in one live region.
#[component]
pub fn Notices(
    /// The link's notices (read once, when the page opened).
    url_notices: Vec<String>,
    /// The engine's answer (its notices).
    run: Memo<Run>,
    /// Why the address bar cannot hold this scenario, if it cannot.
    link_problem: RwSignal<Option<String>>,
    /// True while the engine worker computes.
    computing: Memo<bool>,
    /// True while the pictures are the last valid input's, under an error.
    stale: Signal<bool>,
    /// The engine's error for the current inputs, if any.
    error: Signal<Option<RunError>>,
    /// True while no picture is drawn: the link opened on a scenario the engine refuses.
    nothing_drawn: Signal<bool>,
    /// The title of the fold or section that holds the controls ("Change the numbers" in
    /// a lesson).
    controls_title: Signal<&'static str>,
) -> impl IntoView {
    view! {
        <div class="al-notices" aria-live="polite">
            {url_notices
                .iter()
                .cloned()
                .map(|n| {
                    view! {
                        <p class="al-notice" data-testid="notice">
                            {n}
                        </p>
                    }
                })
                .collect_view()}
            {move || {
                run.with(|r| {
                    r.notices
                        .iter()
                        .map(|n| {
                            view! {
                                <p class="al-notice" data-testid="notice">
                                    {n.clone()}
                                </p>
                            }
                        })
                        .collect_view()
                })
            }}
            {move || {
                link_problem
                    .get()
                    .map(|p| {
                        view! {
                            <p class="al-notice" data-testid="link-too-large">
                                {p}
                            </p>
                        }
                    })
            }}
            <ComputingNote computing=computing />
            {move || {
                stale
                    .get()
                    .then(|| {
                        view! {
                            <p class="al-notice al-stale-note" data-testid="stale">
                                "The pictures below are from the last valid input; fix the input the error names to update them."
                            </p>
                        }
                    })
            }}
            {move || {
                error
                    .get()
                    .filter(|e| shown_at_top(e.field()))
                    .map(|e| {
                        view! {
                            <p class="al-error" data-testid="error" role="alert">
                                {crate::ui::state::field_words::page_words(&e.to_string())}
                            </p>
                        }
                    })
            }}
            // a control's error is shown beside the control; when nothing is drawn (a link
            // the engine refuses) the top of the page says why too, since on a phone the
            // control sits in a fold, and on a wide screen under an empty picture
            {move || {
                let message = error.get().filter(|e| nothing_drawn.get() && !shown_at_top(e.field()))?;
                Some(
                    view! {
                        <p class="al-error" data-testid="nothing-drawn">
                            {nothing_drawn_words(
                                &crate::ui::state::field_words::page_words(&message.to_string()),
                                controls_title.get(),
                            )}
                        </p>
                    },
                )
            }}
        </div>
    }
}

/// What the top of the page says when the engine refuses the scenario a link opened on
/// and nothing is drawn: the engine's `message`, and where the control to change is.
pub fn nothing_drawn_words(message: &str, controls_title: &str) -> String {
    let message = message.trim_end();
    let end = if message.ends_with(['.', '!', '?']) { "" } else { "." };
    format!("Nothing can be drawn for this link: {message}{end} Change it under “{controls_title}”.")
}

/// The errors shown at the top rather than beside a control: the scenario's and the
/// embeddings', which have no control of their own (MLA's shows beside `mla-rank`).
fn shown_at_top(field: Field) -> bool {
    matches!(field, Field::Scenario | Field::Embeddings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::state::settings::scenario;

    /// A refused link's top message: the engine's own words for the scenario, in the page's
    /// names, one full stop, and where the control is.
    #[test]
    fn a_refused_link_says_why_and_where() {
        // the link `?s=the cat sat&rope=half`: the default 6 features in 2 heads, d_k = 3
        let pairs = [("s", "the cat sat"), ("rope", "half")].map(|(k, v)| (k.to_owned(), v.to_owned()));
        let (text, settings, _, notices) = crate::ui::state::url::explorer_from(&pairs, "");
        assert!(notices.is_empty(), "{notices:?}");
        let error = crate::engine::run(&scenario(&text, &settings).0).unwrap_err();
        assert!(!shown_at_top(error.field()), "RoPE's message sits beside its control");
        let words = nothing_drawn_words(
            &crate::ui::state::field_words::page_words(&error.to_string()),
            "Change the sentences and sizes",
        );
        assert!(words.starts_with("Nothing can be drawn for this link: "), "{words}");
        assert!(words.ends_with(". Change it under “Change the sentences and sizes”."), "{words}");
        assert!(!words.contains(".."), "{words}");
        assert_eq!(
            nothing_drawn_words("d_k is odd.", "X"),
            "Nothing can be drawn for this link: d_k is odd. Change it under “X”."
        );
    }
}
