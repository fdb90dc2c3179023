//! The explorer under the notices: the controls, the pipeline (every step, its shape and
//! its PyTorch line) and beside it the selected step's cards. In a lesson the controls
//! and the pipeline fold away under the lesson's stage.

use leptos::prelude::*;

use crate::ui::explorer::controls::Controls;
use crate::ui::explorer::pipeline::Pipeline;
use crate::ui::explorer::tensors::TensorView;
use crate::ui::explorer::tokens::{BatchTabs, Overview};
use crate::ui::platform::screen;
use crate::ui::state::app_state::AppState;
use crate::ui::state::page_layout::{explorer_column, folds_controls};
use crate::ui::state::settings;

/// The title of the controls' fold (in a lesson) or section: also named by the page's
/// notice when a link opens on a scenario the engine refuses.
pub fn controls_title(in_lesson: bool) -> &'static str {
    if in_lesson {
        "Change the numbers"
    } else {
        "Change the sentences and sizes"
    }
}

/// The controls, the pipeline and the selected step's cards.
#[component]
pub fn Explorer(
    /// The page's state.
    state: AppState,
    /// A lesson is open: the controls and the pipeline are folds.
    in_lesson: bool,
) -> impl IntoView {
    let AppState { view: view_state, shown, viewport, .. } = state;
    let phone = !in_lesson && folds_controls(viewport.get_untracked());
    // in a lesson, and on a phone opening the page (a heatmap first), the controls and
    // the sizes wait under a fold; the sentence tabs above the heatmap still name the
    // sentences
    // on a wide screen the controls sit under the selected step's picture, so that the
    // first screen shows a picture (above it, they filled a 900 px screen)
    let folded = in_lesson || phone;
    // a link the engine refuses draws nothing: its fold opens on the control to change
    let refused = shown.with_untracked(Option::is_none) && state.error().with_untracked(Option::is_some);
    let controls = folded.then(|| {
        let title = controls_title(in_lesson);
        view! {
            <details class="al-fold" data-testid="change-numbers" open=refused>
                <summary>{title}</summary>
                <Controls state=state />
                <Overview state=state />
            </details>
        }
    });
    let controls_below = (!folded).then(|| {
        view! {
            <section class="al-controls-below" aria-label=controls_title(false)>
                <h2>{controls_title(false)}</h2>
                <Controls state=state />
            </section>
        }
    });
    let pipeline = move || {
        // the list of steps; selecting one shows its tensors
        view! {
            <Pipeline
                trace=Signal::derive(move || shown.get())
                selected=Signal::derive(move || view_state.with(|v| v.step))
                on_select=Callback::new(move |name| {
                    view_state
                        .update(|v| {
                            v.step = name;
                            v.mode = settings::ViewMode::Cards;
                        });
                    screen::scroll_into_view_if_above(".al-tensors");
                })
            />
        }
    };
    let column = Signal::derive(move || explorer_column(viewport.get()));
    let main = if in_lesson {
        // a step chosen in the pipeline is shown, out of the decode or tiles view
        // the picture of the step is beside the list: bring it into view
        // when the list was scrolled past it (a phone, a long pipeline)
        view! {
            <details class="al-fold" data-testid="pipeline-fold">
                <summary>"The pipeline: every step, its shape and its PyTorch line"</summary>
                {pipeline()}
            </details>
        }
        .into_any()
    } else {
        view! {
            {(!phone).then(|| view! { <Overview state=state /> })}
            <main class="al-main">
                <nav class="al-side" aria-label="Pipeline">
                    <h2>"Pipeline"</h2>
                    {pipeline()}
                </nav>
                <section class="al-tensors" aria-label="Selected step">
                    <div class="al-tabs">
                        <BatchTabs state=state />
                    </div>
                    <TensorView state=state column=column compact=false max_height=Signal::derive(|| None) />
                    {controls_below}
                </section>
            </main>
        }
        .into_any()
    };
    view! {
        {controls}
        {main}
    }
}
