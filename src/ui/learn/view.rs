//! The Learn view: what is being trained and what to watch for, in two sentences; the
//! controls; the curve; the heads' maps.

use leptos::prelude::*;

use attention_worker::train::PROBE_SEQUENCES;

use crate::engine::train::TaskKind;

use crate::ui::learn::challenge_bar::ChallengeBar;
use crate::ui::learn::circuit::{AblationPanel, CompositionPanel};
use crate::ui::learn::controls::{LearnControls, PlayBar};
use crate::ui::learn::gradient_cell::GradientCellPanel;
use crate::ui::learn::head_maps::HeadMaps;
use crate::ui::learn::loss_curve::LossCurve;
use crate::ui::learn::run::LearnRun;
use crate::ui::learn::scrubber::Scrubber;
use crate::ui::learn::settings::LearnSettings;

/// What is trained and what the maps should turn into, for a task.
pub fn intro(task: TaskKind) -> &'static str {
    match task {
        TaskKind::PreviousToken => {
            "A one-layer, attention-only transformer learns by gradient descent to predict, at every position, the token just before it. \
             Watch the heads' maps: they start almost uniform, and a head that solves the task becomes a bright stripe just below the diagonal, every query reading the previous token."
        }
        TaskKind::FirstToken => {
            "A one-layer, attention-only transformer learns by gradient descent to predict, at every position, the sequence's first token. \
             Watch the heads' maps: a head that solves the task puts its weight in the first column, every query reading position 1."
        }
        TaskKind::Induction | TaskKind::Sentences => {
            "A two-layer, attention-only transformer learns to continue a repeated sequence: once a token comes back, predict what followed it the first time. \
             The loss creeps down slowly at first, then drops as two heads form: in layer 1 a previous-token stripe below the diagonal, in layer 2 a head reading the token just after the current token's earlier occurrence. The preset is the induction lesson's run: trained here, it gives the lesson's numbers step for step, to the last digit."
        }
    }
}

/// The whole view. Training starts paused at step 0; leaving the view pauses it.
#[component]
pub fn LearnView(
    /// The settings (the page writes them into its link).
    settings: RwSignal<LearnSettings>,
    /// The window's width, CSS pixels.
    #[prop(into)]
    viewport: Signal<f64>,
) -> impl IntoView {
    let run = LearnRun::new(settings);
    run.reset();
    on_cleanup(move || run.pause());
    let curve_width = Signal::derive(move || (viewport.get() - 48.0).max(200.0));
    view! {
        // the page's main landmark in the Learn view
        <main class="al-learn" data-testid="learn" aria-labelledby="learn-title">
            <h2 id="learn-title">"Watch attention learn"</h2>
            <p class="al-learn-intro" data-testid="learn-intro">
                {move || intro(settings.with(|s| s.task))}
            </p>
            <ChallengeBar run />
            <LearnControls run />
            <PlayBar run />
            <Scrubber run />
            <div class="al-learn-body">
                <LossCurve run max_width=curve_width />
                <HeadMaps run viewport />
            </div>
            <div class="al-learn-parts">
                <AblationPanel run />
                <CompositionPanel run />
            </div>
            <GradientCellPanel run />
            <p class="al-learn-foot">
                {format!(
                    "Everything here is computed exactly, in f64, by the engine in a worker beside this page: every gradient is written out by hand and checked against PyTorch's autograd. The probe batch is fixed: the same {PROBE_SEQUENCES} sequences at every step.",
                )}
            </p>
        </main>
    }
}
