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
        </div>
    }
}

/// The errors shown at the top rather than beside a control: the scenario's and the
/// embeddings', which have no control of their own (MLA's shows beside `mla-rank`).
fn shown_at_top(field: Field) -> bool {
    matches!(field, Field::Scenario | Field::Embeddings)
}
